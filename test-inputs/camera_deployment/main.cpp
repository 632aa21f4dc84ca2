#include "detector.h"

#include <iostream>

bool next_frame(Frame &frame, int index) { return index < 1000; }

int main(int argc, char **argv) {
  std::string device = argc > 2 ? argv[2] : "cuda:0";
  Detector detector(argv[1], device);
  Frame frame;
  // Warm-up on one frame before the loop: once.
  detector.detect(frame);
  std::vector<float> all_scores;
  for (int index = 0; next_frame(frame, index); ++index) {
    auto boxes = detector.detect(frame);
    auto input = torch::rand({1, 3, frame.rows, frame.cols}, torch::Device(device));
    auto scores = detector.score(input);
    torch::Tensor features;
    {
      torch::NoGradGuard no_grad;
      features = detector.embed(input);
    }
    for (const Box &box : boxes)
      all_scores.push_back(box.score);
    std::cout << boxes.size() << " boxes\n";
  }
  std::cout << count_confident(torch::tensor(all_scores)) << "\n";
}
