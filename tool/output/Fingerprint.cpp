#include "output/Fingerprint.h"

#include "llvm/ADT/StringMap.h"

#include <array>
#include <cstdint>

namespace torchlint {

namespace {

/// The text as UTF-16 code units, as JavaScript's charCodeAt sees a file
/// read as UTF-8: an invalid sequence becomes U+FFFD.
std::vector<uint16_t> utf16Units(llvm::StringRef Text) {
  std::vector<uint16_t> Units;
  Units.reserve(Text.size());
  size_t I = 0;
  auto Continuation = [&](size_t At) {
    return At < Text.size() &&
           (static_cast<unsigned char>(Text[At]) & 0xC0) == 0x80;
  };
  while (I < Text.size()) {
    unsigned char C = Text[I];
    uint32_t CodePoint = 0xFFFD;
    size_t Length = 1;
    if (C < 0x80) {
      CodePoint = C;
    } else if ((C >> 5) == 0x6 && Continuation(I + 1)) {
      CodePoint = ((C & 0x1F) << 6) | (Text[I + 1] & 0x3F);
      Length = CodePoint >= 0x80 ? 2 : 1;
      if (Length == 1)
        CodePoint = 0xFFFD;
    } else if ((C >> 4) == 0xE && Continuation(I + 1) && Continuation(I + 2)) {
      CodePoint = ((C & 0x0F) << 12) | ((Text[I + 1] & 0x3F) << 6) |
                  (Text[I + 2] & 0x3F);
      Length = 3;
      if (CodePoint < 0x800 || (CodePoint >= 0xD800 && CodePoint <= 0xDFFF)) {
        CodePoint = 0xFFFD;
        Length = 1;
      }
    } else if ((C >> 3) == 0x1E && Continuation(I + 1) && Continuation(I + 2) &&
               Continuation(I + 3)) {
      CodePoint = ((C & 0x07) << 18) | ((Text[I + 1] & 0x3F) << 12) |
                  ((Text[I + 2] & 0x3F) << 6) | (Text[I + 3] & 0x3F);
      Length = 4;
      if (CodePoint < 0x10000 || CodePoint > 0x10FFFF) {
        CodePoint = 0xFFFD;
        Length = 1;
      }
    }
    if (CodePoint >= 0x10000) {
      CodePoint -= 0x10000;
      Units.push_back(static_cast<uint16_t>(0xD800 + (CodePoint >> 10)));
      Units.push_back(static_cast<uint16_t>(0xDC00 + (CodePoint & 0x3FF)));
    } else {
      Units.push_back(static_cast<uint16_t>(CodePoint));
    }
    I += Length;
  }
  return Units;
}

std::string hex(uint64_t Value) {
  static const char Digits[] = "0123456789abcdef";
  std::string Text;
  do {
    Text.insert(Text.begin(), Digits[Value & 0xF]);
    Value >>= 4;
  } while (Value);
  return Text;
}

} // namespace

std::vector<std::string> lineHashes(llvm::StringRef Utf8Text) {
  constexpr int BlockSize = 100;
  constexpr uint64_t Mod = 37;
  constexpr int Eof = 65535;
  // Arithmetic wraps modulo 2^64, like the Long values of the original.
  uint64_t FirstMod = 1;
  for (int I = 0; I < BlockSize; ++I)
    FirstMod *= Mod;

  std::array<int, BlockSize> Window{};
  std::array<int, BlockSize> LineNumbers;
  LineNumbers.fill(-1);
  uint64_t Hash = 0;
  int Index = 0;
  int LineNumber = 0;
  bool LineStart = true;
  bool PrevCR = false;
  llvm::StringMap<unsigned> Counts;
  std::vector<std::string> Result;

  auto Output = [&] {
    std::string Value = hex(Hash);
    unsigned Count = ++Counts[Value];
    size_t Line = static_cast<size_t>(LineNumbers[Index]);
    if (Result.size() < Line)
      Result.resize(Line);
    Result[Line - 1] = Value + ":" + std::to_string(Count);
    LineNumbers[Index] = -1;
  };
  auto Update = [&](int Current) {
    int Begin = Window[Index];
    Window[Index] = Current;
    Hash = Mod * Hash + static_cast<uint64_t>(static_cast<int64_t>(Current)) -
           FirstMod * static_cast<uint64_t>(static_cast<int64_t>(Begin));
    Index = (Index + 1) % BlockSize;
  };
  auto Process = [&](int Current) {
    if (Current == ' ' || Current == '\t' || (PrevCR && Current == '\n')) {
      PrevCR = false;
      return;
    }
    if (Current == '\r') {
      Current = '\n';
      PrevCR = true;
    } else {
      PrevCR = false;
    }
    if (LineNumbers[Index] != -1)
      Output();
    if (LineStart) {
      LineStart = false;
      LineNumbers[Index] = ++LineNumber;
    }
    if (Current == '\n')
      LineStart = true;
    Update(Current);
  };

  for (uint16_t Unit : utf16Units(Utf8Text))
    Process(Unit);
  Process(Eof);
  for (int I = 0; I < BlockSize; ++I) {
    if (LineNumbers[Index] != -1)
      Output();
    Update(0);
  }
  return Result;
}

} // namespace torchlint
