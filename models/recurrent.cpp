#include "models/recurrent.h"

#include <stdexcept>

namespace speedbench::models {

RecurrentStackImpl::RecurrentStackImpl(const RecurrentOptions& options) {
  if (options.cell == "lstm") {
    lstm_ = register_module(
        "lstm", torch::nn::LSTM(torch::nn::LSTMOptions(options.input_size, options.hidden)
                                    .num_layers(options.layers)
                                    .batch_first(true)));
  } else if (options.cell == "gru") {
    gru_ = register_module("gru",
                           torch::nn::GRU(torch::nn::GRUOptions(options.input_size, options.hidden)
                                              .num_layers(options.layers)
                                              .batch_first(true)));
  } else {
    throw std::invalid_argument("recurrent cell must be lstm or gru, got " + options.cell);
  }
}

torch::Tensor RecurrentStackImpl::forward(const torch::Tensor& sequence) {
  if (lstm_) return std::get<0>(lstm_->forward(sequence));
  return std::get<0>(gru_->forward(sequence));
}

RowRnnClassifierImpl::RowRnnClassifierImpl(const RecurrentOptions& options) {
  rnn_ = register_module("rnn", RecurrentStack(options));
  head_ = register_module("head", torch::nn::Linear(options.hidden, options.outputs));
}

torch::Tensor RowRnnClassifierImpl::forward(const torch::Tensor& images) {
  // B x C x H x W -> B x H x (C*W): one step per image row.
  auto rows = images.permute({0, 2, 1, 3}).flatten(2);
  auto states = rnn_->forward(rows);            // B x H x hidden
  return head_->forward(states.select(1, -1));  // last step -> B x classes
}

CharLanguageModelImpl::CharLanguageModelImpl(const RecurrentOptions& options) {
  embedding_ =
      register_module("embedding", torch::nn::Embedding(options.outputs, options.input_size));
  rnn_ = register_module("rnn", RecurrentStack(options));
  head_ = register_module("head", torch::nn::Linear(options.hidden, options.outputs));
}

torch::Tensor CharLanguageModelImpl::forward(const torch::Tensor& ids) {
  // B x T -> B x T x embedding -> B x T x hidden -> B x T x vocabulary
  return head_->forward(rnn_->forward(embedding_->forward(ids)));
}

}  // namespace speedbench::models
