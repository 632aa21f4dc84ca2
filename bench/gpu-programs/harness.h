// What every whole program of this folder does the same way around its timed
// loop: read the run's length from the command line, and print the one JSON
// line bench/gpu_programs.py reads. The loop, its warm-up synchronisation and
// the device stay in each program: they are the pattern torchlint analyzes
// and the replay rebuilds.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>

/// The timed steps: the first argument, else Default.
inline int stepsArgument(int argc, char **argv, int Default) {
  return argc > 1 ? std::atoi(argv[1]) : Default;
}

/// The untimed steps before them: the second argument, else Default; never
/// more than the timed steps.
inline int warmupArgument(int argc, char **argv, int Steps, int Default) {
  return std::min(Steps, argc > 2 ? std::atoi(argv[2]) : Default);
}

/// {"program": ..., "steps": ..., "seconds": ..., "device": "cuda"|"cpu"}
inline void printResult(const char *Program, int Steps, double Seconds,
                        bool Cuda) {
  std::printf("{\"program\": \"%s\", \"steps\": %d, \"seconds\": %.6f, "
              "\"device\": \"%s\"}\n",
              Program, Steps, Seconds, Cuda ? "cuda" : "cpu");
}
