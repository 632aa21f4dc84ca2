#!/usr/bin/env python3
"""Writes a libtorch program shaped like a transformer project: MODULES
module classes, each with LAYERS registered layers and a constructor and
forward that use them, nested as blocks within blocks (each module holds the
previous two, as encoders hold layers and layers hold attention), a model
that holds them all, and FUNCTIONS training and inference functions that run
the model, each calling the next.

    stress_program.py MODULES LAYERS FUNCTIONS > program.cpp

bench/stress.sh times torchlint on it against clang's parse as the numbers
grow: analysis time must grow no faster than the program does.
"""
import sys

modules, layers, functions = (int(a) for a in sys.argv[1:4])
out = ["#include <torch/torch.h>", "", "#include <iostream>", "#include <vector>", ""]
for m in range(modules):
    inner = [k for k in (m - 1, m - 2) if k >= 0]
    out.append(f"struct Block{m}Impl : torch::nn::Module {{")
    out.append(f"  explicit Block{m}Impl(int64_t width) {{")
    for l in range(layers):
        out.append(f'    fc{l} = register_module("fc{l}", '
                   f"torch::nn::Linear(width, width));")
    out.append('    norm = register_module("norm", '
               "torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));")
    for k in inner:
        out.append(f'    inner{k} = register_module("inner{k}", Block{k}(width));')
    out.append("  }")
    out.append("  torch::Tensor forward(torch::Tensor x) {")
    out.append("    auto residual = x;")
    for l in range(layers):
        out.append(f"    x = torch::relu(fc{l}(x));")
    for k in inner:
        out.append(f"    x = x + inner{k}(x);")
    out.append("    return norm(x + residual);")
    out.append("  }")
    for l in range(layers):
        out.append(f"  torch::nn::Linear fc{l}{{nullptr}};")
    out.append("  torch::nn::LayerNorm norm{nullptr};")
    for k in inner:
        out.append(f"  Block{k} inner{k}{{nullptr}};")
    out.append("};")
    out.append(f"TORCH_MODULE(Block{m});")
    out.append("")

out.append("struct ModelImpl : torch::nn::Module {")
out.append("  explicit ModelImpl(int64_t width) {")
for m in range(modules):
    out.append(f'    block{m} = register_module("block{m}", Block{m}(width));')
out.append('    head = register_module("head", torch::nn::Linear(width, 10));')
out.append("  }")
out.append("  torch::Tensor forward(torch::Tensor x) {")
for m in range(modules):
    out.append(f"    x = block{m}(x);")
out.append("    return head(x);")
out.append("  }")
for m in range(modules):
    out.append(f"  Block{m} block{m}{{nullptr}};")
out.append("  torch::nn::Linear head{nullptr};")
out.append("};")
out.append("TORCH_MODULE(Model);")
out.append("")

for f in reversed(range(functions)):  # each calls the next, defined above it
    out.append(f"double step{f}(Model& model, torch::optim::Optimizer& optimizer,")
    out.append("             const torch::Device& device, int64_t width) {")
    out.append("  double total = 0;")
    out.append("  for (int i = 0; i < 8; ++i) {")
    out.append("    auto input = torch::randn({32, width}).to(device);")
    out.append("    auto target = torch::randint(0, 10, {32}).to(device);")
    out.append("    optimizer.zero_grad();")
    out.append("    auto loss = torch::nll_loss(torch::log_softmax(model->forward(input), 1), target);")
    out.append("    loss.backward();")
    out.append("    optimizer.step();")
    out.append("    total += loss.item<double>();")
    out.append("  }")
    if f + 1 < functions:
        out.append(f"  return total + step{f + 1}(model, optimizer, device, width);")
    else:
        out.append("  return total;")
    out.append("}")
    out.append("")
    out.append(f"torch::Tensor infer{f}(Model& model, const torch::Device& device,")
    out.append("                      int64_t width) {")
    out.append("  model->eval();")
    out.append("  std::vector<torch::Tensor> outputs;")
    out.append("  for (int i = 0; i < 4; ++i)")
    out.append("    outputs.push_back(model->forward(torch::randn({8, width}).to(device)));")
    out.append("  return torch::cat(outputs);")
    out.append("}")
    out.append("")

out.append("int main(int argc, char** argv) {")
out.append("  torch::Device device(argc > 1 ? torch::kCUDA : torch::kCPU);")
out.append("  const int64_t width = 64;")
out.append("  Model model(width);")
out.append("  model->to(device);")
out.append("  torch::optim::SGD optimizer(model->parameters(), 0.01);")
if functions:
    out.append("  std::cout << step0(model, optimizer, device, width) << std::endl;")
    out.append(f"  std::cout << infer{functions - 1}(model, device, width).sum() << std::endl;")
out.append("}")
print("\n".join(out))
