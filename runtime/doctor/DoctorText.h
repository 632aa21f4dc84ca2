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

inline bool endsWith(const std::string &Text, const std::string &Suffix) {
  return Text.size() >= Suffix.size() &&
         Text.compare(Text.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

/// The folder part of a path: "." for a bare name, "/" for "/name".
inline std::string folderOf(const std::string &Path) {
  std::size_t Slash = Path.rfind('/');
  if (Slash == std::string::npos)
    return ".";
  return Slash == 0 ? "/" : Path.substr(0, Slash);
}

inline std::string fileNameOf(const std::string &Path) {
  std::size_t Slash = Path.rfind('/');
  return Slash == std::string::npos ? Path : Path.substr(Slash + 1);
}

inline std::string firstLine(const std::string &Text) {
  std::string Trimmed = trim(Text);
  return Trimmed.substr(0, Trimmed.find('\n'));
}

} // namespace torchlint::doctor

#endif // TORCHLINT_RUNTIME_DOCTORTEXT_H
