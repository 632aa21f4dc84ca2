// cuDNN's benchmark mode is one setting for the whole process: a program
// that sets it in one unit (main.cpp, once the device is chosen) has decided
// for the convolutions another unit moves to the GPU (trainer.cpp), which
// is not reported. The summary pass tells each unit whether another unit of
// its program sets it.
#pragma once

#include <torch/torch.h>

void train(torch::Device device, int epochs);
