// The recurrent workloads:
//   RowRnnClassifier: reads an image row by row (H steps of C*W features, 28 x 28 for
//   Fashion-MNIST) with an LSTM or GRU and classifies from the last hidden state.
//   CharLanguageModel: embedding -> LSTM/GRU -> linear over the character vocabulary; trained
//   on next-character prediction (loss in nats; bits per char = loss / ln 2).
#pragma once

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/rnn.h>

#include <string>

namespace speedbench::models {

struct RecurrentOptions {
  std::string cell = "lstm";  // lstm | gru
  int64_t input_size = 28;    // features per step (row_rnn) or embedding size (char_lm)
  int64_t hidden = 128;
  int64_t layers = 1;
  int64_t outputs = 10;  // classes, or vocabulary size
};

// An LSTM or a GRU behind one interface (batch first): [B, T, F] -> [B, T, hidden].
class RecurrentStackImpl : public torch::nn::Module {
 public:
  explicit RecurrentStackImpl(const RecurrentOptions& options);
  torch::Tensor forward(const torch::Tensor& sequence);

 private:
  torch::nn::LSTM lstm_{nullptr};
  torch::nn::GRU gru_{nullptr};
};
TORCH_MODULE(RecurrentStack);

class RowRnnClassifierImpl : public torch::nn::Module {
 public:
  explicit RowRnnClassifierImpl(const RecurrentOptions& options);
  // images: [B, C, H, W] -> logits [B, outputs]
  torch::Tensor forward(const torch::Tensor& images);

 private:
  RecurrentStack rnn_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(RowRnnClassifier);

class CharLanguageModelImpl : public torch::nn::Module {
 public:
  // options.input_size is the embedding size, options.outputs the vocabulary size.
  explicit CharLanguageModelImpl(const RecurrentOptions& options);
  // ids: int64 [B, T] -> logits [B, T, vocabulary]
  torch::Tensor forward(const torch::Tensor& ids);

 private:
  torch::nn::Embedding embedding_{nullptr};
  RecurrentStack rnn_{nullptr};
  torch::nn::Linear head_{nullptr};
};
TORCH_MODULE(CharLanguageModel);

}  // namespace speedbench::models
