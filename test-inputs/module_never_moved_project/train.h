// torch-module-never-moved across units: main.cpp asks for CUDA, train.cpp
// builds the model and runs it on every step without moving it.
#pragma once

#include <torch/torch.h>

void train(int epochs);
