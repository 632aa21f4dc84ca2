// torch-widen-before-copy: in a loop that runs per frame, request or batch,
// narrow host data (8-bit pixels, 16-bit samples) is converted to a wider
// dtype on the host and then copied to the GPU, so two to four times the
// bytes cross the bus. Copying the narrow data and converting it on the
// device moves the same values. Data wide at its source, conversions on the
// device, narrowing conversions, integer conversions (indices made 64-bit),
// non-blocking copies (which convert on the device) and one-time copies are
// fine.
#include <torch/torch.h>

#include <cstdint>
#include <vector>

// What the program uses of OpenCV 4, as opencv2/core.hpp and dnn.hpp declare
// it (the analyzer matches its names, not its headers).
#define CV_8U 0
#define CV_32F 5
#define CV_8UC3 16
#define CV_32FC3 21
namespace cv {
class Mat;
class _InputArray {
public:
  _InputArray(const Mat &m);
};
class _OutputArray {
public:
  _OutputArray(Mat &m);
};
using InputArray = const _InputArray &;
using OutputArray = const _OutputArray &;
struct Size {
  Size(int w, int h);
};
class Mat {
public:
  Mat();
  void convertTo(OutputArray m, int rtype, double alpha = 1,
                 double beta = 0) const;
  template <typename T> T *ptr(int row = 0);
  unsigned char *data;
  int rows, cols;
};
namespace dnn {
Mat blobFromImage(InputArray image, double scalefactor = 1.0,
                  const Size &size = Size(0, 0), bool swapRB = false,
                  bool crop = false, int ddepth = CV_32F);
void blobFromImage(InputArray image, OutputArray blob,
                   double scalefactor = 1.0, const Size &size = Size(0, 0),
                   bool swapRB = false, bool crop = false, int ddepth = CV_32F);
} // namespace dnn
} // namespace cv

struct Frame {
  std::vector<uint8_t> pixels;
  int64_t rows = 480, cols = 640;
};

Frame grab();
cv::Mat read_image();
torch::Tensor detect(const torch::Tensor &input);

torch::Device pick_device() {
  return torch::cuda::is_available() ? torch::Device(torch::kCUDA)
                                     : torch::Device(torch::kCPU);
}

// --- positives -------------------------------------------------------------

void camera_loop(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto input = torch::from_blob(frame.pixels.data(), {frame.rows, frame.cols, 3}, torch::kByte).permute({2, 0, 1}).to(device).to(torch::kFloat).div(255); // expect: torch-widen-before-copy [note] "the tensor is widened from uint8 to float32 on the host before its copy to the GPU on every iteration, so 4 times the bytes cross the bus", torch-pageable-copy // expect-note: "copy the uint8 data and convert it on the device"
    detect(input);
  }
}

void through_variables(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto pixels = torch::from_blob(frame.pixels.data(), {frame.rows, frame.cols, 3}, torch::kByte);
    auto input = pixels.toType(torch::kFloat); // expect-note: "widened from uint8 to float32 here"
    input = input.div(255).unsqueeze(0);
    detect(input.to(device)); // expect: torch-widen-before-copy [note] "'input' is widened from uint8 to float32", torch-pageable-copy
  }
}

void divided_on_the_host(torch::Device device) {
  while (true) {
    Frame frame = grab();
    auto pixels = torch::from_blob(frame.pixels.data(), {frame.rows, frame.cols, 3}, torch::kUInt8);
    detect(pixels.to(device).div(255.0)); // expect: torch-widen-before-copy [note] "'pixels.div(255.0)' is widened from uint8 to float32", torch-pageable-copy
  }
}

void scaled_by_an_operator(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto pixels = torch::from_blob(frame.pixels.data(), {frame.rows, frame.cols, 3}, torch::kByte);
    detect((pixels.to(device) * (1.0 / 255))); // expect: torch-widen-before-copy [note] "widened from uint8 to float32", torch-pageable-copy
  }
}

void converted_by_the_copy(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto pixels = torch::from_blob(frame.pixels.data(), {frame.rows, frame.cols, 3}, torch::kByte);
    detect(pixels.to(device).to(torch::kFloat)); // expect: torch-widen-before-copy [note] "'pixels' is converted from uint8 to float32 on the host by its blocking copy to the GPU on every iteration", torch-pageable-copy // expect-note: "'.to(device).to(torch::kFloat)'"
  }
}

void half_precision_model(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto pixels = torch::from_blob(frame.pixels.data(), {frame.rows, frame.cols, 3}, torch::kByte);
    detect(pixels.to(device).to(torch::kHalf)); // expect: torch-widen-before-copy [note] "from uint8 to float16 on the host before its copy to the GPU on every iteration, so twice the bytes", torch-pageable-copy
  }
}

void audio_samples(std::vector<int16_t> &samples, torch::Device device) {
  for (int chunk = 0; chunk < 100; ++chunk) {
    auto wave = torch::from_blob(samples.data(), {16000}, torch::kInt16).to(torch::kFloat).div(32768); // expect-note: "widened from int16 to float32 here"
    detect(wave.to(device)); // expect: torch-widen-before-copy [note] "'wave' is widened from int16 to float32", torch-pageable-copy
  }
}

void opencv_conversion(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    cv::Mat image = read_image();
    cv::Mat scaled;
    image.convertTo(scaled, CV_32FC3, 1.0 / 255); // expect-note: "converted to float32 here"
    auto input = torch::from_blob(scaled.data, {1, image.rows, image.cols, 3}, torch::kFloat);
    detect(input.to(device)); // expect: torch-widen-before-copy [note] "OpenCV converts the image to float32 on the host before its copy to the GPU on every iteration, so 4 times the bytes of the 8-bit image cross the bus", torch-pageable-copy
  }
}

void opencv_blob(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    cv::Mat image = read_image();
    cv::Mat blob = cv::dnn::blobFromImage(image, 1.0 / 255, cv::Size(640, 640), true); // expect-note: "converted to float32 here"
    detect(torch::from_blob(blob.ptr<float>(), {1, 3, 640, 640}).to(device)); // expect: torch-widen-before-copy [note] "OpenCV converts the image to float32", torch-pageable-copy
  }
}

struct Images : torch::data::datasets::Dataset<Images> {
  torch::data::Example<> get(size_t index) override {
    cv::Mat image = read_image();
    auto pixels = torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte);
    return {pixels.permute({2, 0, 1}).to(torch::kFloat).div(255), // expect-note: "widened from uint8 to float32 here"
            torch::tensor(static_cast<int64_t>(index % 10))};
  }
  torch::optional<size_t> size() const override { return 1000; }
};

void dataset_widens(torch::Device device) {
  auto loader = torch::data::make_data_loader(
      Images().map(torch::data::transforms::Stack<>()),
      torch::data::DataLoaderOptions(32).workers(2));
  for (auto &batch : *loader)
    detect(batch.data.to(device)); // expect: torch-widen-before-copy [note] "'batch.data' is widened from uint8 to float32 by the dataset on the host before its copy", torch-pageable-copy // expect-note: "return the uint8 data from the dataset and convert it after the copy"
}

torch::Tensor upload(std::vector<uint8_t> &pixels, torch::Device device) {
  return torch::from_blob(pixels.data(), {480, 640, 3}, torch::kByte).to(device).to(torch::kFloat); // expect: torch-widen-before-copy [note] "widened from uint8 to float32", torch-pageable-copy
}

void calls_a_helper(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    detect(upload(frame.pixels, device)); // expect-note: "called on every iteration of a loop here"
  }
}

void into_a_device_buffer(torch::Device device) {
  auto on_device = torch::empty({480, 640, 3}, torch::TensorOptions().device(device));
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto pixels = torch::from_blob(frame.pixels.data(), {480, 640, 3}, torch::kByte);
    on_device.copy_(pixels.to(torch::kFloat)); // expect: torch-widen-before-copy [note] "widened from uint8 to float32", torch-pageable-copy
    detect(on_device);
  }
}

void reassigned_step_by_step(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    torch::Tensor t = torch::from_blob(frame.pixels.data(), {480, 640, 3}, torch::kByte);
    t = t.permute({2, 0, 1});
    t = t.toType(torch::kFloat); // expect-note: "widened from uint8 to float32 here"
    t = t.to(device); // expect: torch-widen-before-copy [note] "'t' is widened from uint8 to float32", torch-pageable-copy
    detect(t);
  }
}

torch::Tensor image_to_tensor(cv::Mat image) {
  auto t = torch::from_blob(image.data, {image.rows, image.cols, 3}, torch::kByte);
  t = t.permute({2, 0, 1}).toType(torch::kFloat); // expect-note: "widened from uint8 to float32 here"
  return t.div(255).unsqueeze(0);
}

void through_a_returned_tensor(torch::Device device) {
  for (int i = 0; i < 1000; ++i)
    detect(image_to_tensor(read_image()).to(device)); // expect: torch-widen-before-copy [note] "widened from uint8 to float32", torch-pageable-copy
}

torch::Tensor predict_on(const torch::Tensor &batch, torch::Device device) {
  return detect(batch.to(device)); // expect: torch-widen-before-copy [note] "'batch' is widened from uint8 to float32", torch-pageable-copy
}

void through_a_parameter(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto pixels = torch::from_blob(frame.pixels.data(), {480, 640, 3}, torch::kByte);
    predict_on(pixels.to(torch::kFloat).div(255), device); // expect-note: "widened from uint8 to float32 here"
  }
}

// --- negatives -------------------------------------------------------------

torch::Tensor predict_either(const torch::Tensor &batch, torch::Device device) {
  return detect(batch.to(device)); // expect: torch-pageable-copy
}

void one_caller_passes_narrow_data(std::vector<float> &features, torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto pixels = torch::from_blob(frame.pixels.data(), {480, 640, 3}, torch::kByte);
    predict_either(pixels.to(torch::kFloat), device);
    predict_either(pixels, device);
  }
}

void converted_on_the_device(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto input = torch::from_blob(frame.pixels.data(), {frame.rows, frame.cols, 3}, torch::kByte).to(device).permute({2, 0, 1}).to(torch::kFloat).div(255); // expect: torch-pageable-copy
    detect(input);
  }
}

void wide_at_the_source(std::vector<float> &features, torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    auto input = torch::from_blob(features.data(), {64, 16}).div(255).to(device); // expect: torch-pageable-copy
    detect(input);
  }
}

void narrowed_on_the_host(std::vector<float> &features, torch::Device device) {
  for (int i = 0; i < 1000; ++i)
    detect(torch::from_blob(features.data(), {64, 16}).to(torch::kHalf).to(device)); // expect: torch-pageable-copy
}

void same_width(std::vector<int32_t> &ids, std::vector<int64_t> &labels, torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    detect(torch::from_blob(ids.data(), {64}, torch::kInt).to(torch::kFloat).to(device)); // expect: torch-pageable-copy
    detect(torch::from_blob(labels.data(), {64}, torch::kLong).to(torch::kFloat).to(device)); // expect: torch-pageable-copy
    detect(torch::from_blob(ids.data(), {64}, torch::kInt).to(torch::kLong).to(device)); // expect: torch-pageable-copy
  }
}

void non_blocking_converts_on_the_device(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto pixels = torch::from_blob(frame.pixels.data(), {480, 640, 3}, torch::kByte).pin_memory();
    detect(pixels.to(device, torch::kFloat, /*non_blocking=*/true));
  }
}

void dtype_not_known(const torch::Tensor &image, torch::Device device) {
  for (int i = 0; i < 1000; ++i)
    detect(image.to(torch::kFloat).to(device));
}

void once_before_the_loop(std::vector<uint8_t> &mask, torch::Device device) {
  auto on_device = torch::from_blob(mask.data(), {480, 640}, torch::kByte).to(torch::kFloat).to(device);
  for (int i = 0; i < 1000; ++i)
    detect(on_device);
}

void first_frame_only(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    if (i == 0) {
      auto reference = torch::from_blob(frame.pixels.data(), {480, 640, 3}, torch::kByte).to(torch::kFloat).to(device);
      detect(reference);
    }
  }
}

void only_some_paths_widen(bool normalize, torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    auto t = torch::from_blob(frame.pixels.data(), {480, 640, 3}, torch::kByte);
    if (normalize)
      t = t.to(torch::kFloat).div(255);
    detect(t.to(device)); // expect: torch-pageable-copy
  }
}

void opencv_stays_8_bit(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    cv::Mat image = read_image();
    cv::Mat copy;
    image.convertTo(copy, CV_8UC3);
    detect(torch::from_blob(copy.data, {image.rows, image.cols, 3}, torch::kByte).to(device)); // expect: torch-pageable-copy
  }
}

void to_the_cpu(torch::Device device) {
  for (int i = 0; i < 1000; ++i) {
    Frame frame = grab();
    detect(torch::from_blob(frame.pixels.data(), {480, 640, 3}, torch::kByte).to(torch::kFloat).to(torch::kCPU));
  }
}

int main() {
  torch::Device device = pick_device();
  camera_loop(device);
  through_variables(device);
  divided_on_the_host(device);
  scaled_by_an_operator(device);
  converted_by_the_copy(device);
  half_precision_model(device);
  std::vector<int16_t> samples(16000);
  audio_samples(samples, device);
  opencv_conversion(device);
  opencv_blob(device);
  dataset_widens(device);
  calls_a_helper(device);
  into_a_device_buffer(device);
  reassigned_step_by_step(device);
  converted_on_the_device(device);
  non_blocking_converts_on_the_device(device);
  std::vector<uint8_t> mask(480 * 640);
  once_before_the_loop(mask, device);
  first_frame_only(device);
  only_some_paths_widen(true, device);
  opencv_stays_8_bit(device);
  to_the_cpu(device);
  through_a_returned_tensor(device);
  through_a_parameter(device);
  std::vector<float> features(64 * 16);
  one_caller_passes_narrow_data(features, device);
}
