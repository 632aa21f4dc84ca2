#include "agent.h"

int main() {
  Agent agent;
  for (int step = 0; step < 1000; ++step) {
    auto state = torch::rand({1, 4});
    agent.act(state);
    agent.remember(state);
    agent.learn();
    agent.learn_on_its_device();
  }
}
