//===--- DoctorText.h - Small string helpers of the doctor ------*- C++ -*-===//

#ifndef TORCHLINT_RUNTIME_DOCTORTEXT_H
#define TORCHLINT_RUNTIME_DOCTORTEXT_H

#include <cctype>
#include <string>

namespace torchlint::doctor {

inline bool startsWith(const std::string &Text, const std::string &Prefix) {
  return Text.compare(0, Prefix.size(), Prefix) == 0;
}

inline bool contains(const std::string &Text, const std::string &Part) {
  return Text.find(Part) != std::string::npos;
}

inline std::string trim(const std::string &Text) {
  std::size_t Begin = 0;
  std::size_t End = Text.size();
  while (Begin < End && std::isspace(static_cast<unsigned char>(Text[Begin])))
    ++Begin;
  while (End > Begin && std::isspace(static_cast<unsigned char>(Text[End - 1])))
    --End;
  return Text.substr(Begin, End - Begin);
}

inline std::string firstLine(const std::string &Text) {
  std::string Trimmed = trim(Text);
  return Trimmed.substr(0, Trimmed.find('\n'));
}

} // namespace torchlint::doctor

#endif // TORCHLINT_RUNTIME_DOCTORTEXT_H
