#include "harness/techniques/checkpointing.h"

#include <torch/torch.h>

namespace speedbench {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// What backward needs besides the saved input: the segment to recompute, its parameters and
// running statistics, and the RNG state the forward ran with.
struct SegmentCapsule : torch::CustomClassHolder {
  std::function<torch::Tensor(const torch::Tensor&)> segment;
  std::vector<torch::Tensor> parameters;
  std::vector<torch::Tensor> buffers;
  torch::Tensor cpu_rng_state;
};

class CheckpointFunction : public torch::autograd::Function<CheckpointFunction> {
 public:
  // `parameters` is a TensorList argument so that autograd sees the parameters as inputs of
  // this node (a std::vector argument would not be): that is what routes their gradients.
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& input,
                               c10::intrusive_ptr<SegmentCapsule> capsule,
                               at::TensorList parameters) {
    capsule->cpu_rng_state = at::detail::getDefaultCPUGenerator().get_state();
    ctx->save_for_backward({input});
    ctx->saved_data["capsule"] = c10::IValue::make_capsule(capsule);
    torch::NoGradGuard no_grad;  // no graph, no stored activations
    return capsule->segment(input);
  }

  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto capsule =
        c10::static_intrusive_pointer_cast<SegmentCapsule>(ctx->saved_data["capsule"].toCapsule());
    auto input = ctx->get_saved_variables()[0].detach().requires_grad_(ctx->needs_input_grad(0));

    // Recompute with the forward's RNG state; restore the RNG, and after the gradients the
    // running statistics (the recompute must not update them a second time).
    std::vector<torch::Tensor> saved_buffers;
    for (const auto& b : capsule->buffers) saved_buffers.push_back(b.clone());
    auto generator = at::detail::getDefaultCPUGenerator();
    const auto rng_now = generator.get_state();
    generator.set_state(capsule->cpu_rng_state);
    torch::Tensor output;
    {
      torch::AutoGradMode enable_grad(true);
      output = capsule->segment(input);
    }
    generator.set_state(rng_now);

    std::vector<torch::Tensor> wrt;
    if (input.requires_grad()) wrt.push_back(input);
    wrt.insert(wrt.end(), capsule->parameters.begin(), capsule->parameters.end());
    auto grads = torch::autograd::grad({output}, wrt, {grad_outputs[0]}, /*retain_graph=*/false,
                                       /*create_graph=*/false, /*allow_unused=*/true);
    {
      // Only now: BatchNorm's backward reads the running statistics it saved.
      torch::NoGradGuard no_grad;
      for (size_t i = 0; i < saved_buffers.size(); ++i) capsule->buffers[i].copy_(saved_buffers[i]);
    }
    // One gradient per forward argument, TensorList flattened: input, capsule, parameters...
    variable_list result;
    size_t next = 0;
    result.push_back(input.requires_grad() ? grads[next++] : torch::Tensor());
    result.push_back(torch::Tensor());
    while (next < grads.size()) result.push_back(grads[next++]);
    return result;
  }
};

}  // namespace

torch::Tensor checkpoint(const std::function<torch::Tensor(const torch::Tensor&)>& segment,
                         const torch::Tensor& input, const std::vector<torch::Tensor>& parameters,
                         const std::vector<torch::Tensor>& buffers) {
  auto capsule = c10::make_intrusive<SegmentCapsule>();
  capsule->segment = segment;
  capsule->parameters = parameters;
  capsule->buffers = buffers;
  return CheckpointFunction::apply(input, capsule, at::TensorList(capsule->parameters));
}

torch::Tensor checkpointed_resnet_forward(models::ResNetImpl& net, const torch::Tensor& input,
                                          int64_t segments_per_chunk) {
  const int64_t head = net.num_segments() - 1;
  auto x = input;
  for (int64_t begin = 0; begin < head; begin += segments_per_chunk) {
    const int64_t end = std::min(begin + segments_per_chunk, head);
    std::vector<torch::Tensor> parameters, buffers;
    for (int64_t i = begin; i < end; ++i) {
      for (const auto& p : net.segment_parameters(i)) parameters.push_back(p);
      for (const auto& b : net.segment_buffers(i)) buffers.push_back(b);
    }
    auto run_chunk = [&net, begin, end](const torch::Tensor& chunk_input) {
      auto out = chunk_input;
      for (int64_t i = begin; i < end; ++i) out = net.forward_segment(i, out);
      return out;
    };
    x = checkpoint(run_chunk, x, parameters, buffers);
  }
  return net.forward_segment(head, x);
}

}  // namespace speedbench
