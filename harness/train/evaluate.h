// Evaluation on the test split: mean cross-entropy and accuracy, in eval mode (BatchNorm uses
// its running statistics).
// Tip 16, eval_no_grad: evaluation with autograd recording (the graph of every batch is built
// and kept until the batch's outputs die) -> under torch::NoGradGuard. Claim: no graph is kept,
// so evaluation takes less memory and time (PyTorch docs, torch.no_grad).
#pragma once

#include <torch/types.h>

#include "harness/data/batch_dataset.h"
#include "harness/train/workload.h"

namespace speedbench {

struct EvalResult {
  double loss = 0;      // mean per example (per character for the LM), nats
  double accuracy = 0;  // fraction of correct argmax predictions
};

EvalResult evaluate(Workload& workload, const data::BatchDataset& test_set, int64_t batch_size,
                    const torch::Device& device, bool no_grad, bool channels_last);

// Cross-entropy over the last dimension of `logits` (classification or per-character).
torch::Tensor classification_loss(const torch::Tensor& logits, const torch::Tensor& targets);

}  // namespace speedbench
