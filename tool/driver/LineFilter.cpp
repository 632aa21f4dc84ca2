//===--- LineFilter.cpp - --line-filter: which lines are reported ---------===//

#include "driver/LineFilter.h"

#include <nlohmann/json.hpp>

namespace torchlint {

llvm::Expected<LineFilter> parseLineFilter(llvm::StringRef Json) {
  auto Invalid = [](const llvm::Twine &Why) {
    return llvm::createStringError(std::errc::invalid_argument,
                                   "invalid --line-filter: %s (expected "
                                   "[{\"name\":\"file.cpp\",\"lines\":[[1,3],["
                                   "5,7]]},{\"name\":\"file.h\"}])",
                                   Why.str().c_str());
  };
  nlohmann::json Parsed =
      nlohmann::json::parse(Json.begin(), Json.end(), nullptr,
                            /*allow_exceptions=*/false);
  if (Parsed.is_discarded())
    return Invalid("not JSON");
  if (!Parsed.is_array())
    return Invalid("not an array");
  LineFilter Filter;
  for (const nlohmann::json &Entry : Parsed) {
    if (!Entry.is_object() || !Entry.contains("name") ||
        !Entry["name"].is_string() || Entry["name"].get<std::string>().empty())
      return Invalid("an entry without a file name");
    FileLines File{Entry["name"].get<std::string>(), {}};
    if (Entry.contains("lines")) {
      const nlohmann::json &Lines = Entry["lines"];
      if (!Lines.is_array())
        return Invalid("\"lines\" of " + File.Name + " is not an array");
      for (const nlohmann::json &Range : Lines) {
        if (!Range.is_array() || Range.size() != 2 ||
            !Range[0].is_number_unsigned() || !Range[1].is_number_unsigned())
          return Invalid("a range of " + File.Name +
                         " is not a pair of line numbers");
        unsigned First = Range[0].get<unsigned>();
        unsigned Last = Range[1].get<unsigned>();
        if (First == 0 || Last < First)
          return Invalid("the range [" + llvm::Twine(First) + ", " +
                         llvm::Twine(Last) + "] of " + File.Name + " is empty");
        File.Lines.emplace_back(First, Last);
      }
    }
    Filter.push_back(std::move(File));
  }
  return Filter;
}

bool passesLineFilter(const LineFilter &Filter, llvm::StringRef File,
                      unsigned Line) {
  if (Filter.empty())
    return true;
  for (const FileLines &Listed : Filter) {
    if (!File.ends_with(Listed.Name))
      continue;
    if (Listed.Lines.empty())
      return true;
    for (auto [First, Last] : Listed.Lines)
      if (First <= Line && Line <= Last)
        return true;
  }
  return false;
}

} // namespace torchlint
