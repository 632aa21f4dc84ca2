#include "core/RuleInfo.h"

namespace torchlint {

unsigned readOption(const RuleInfo &Info, const RuleOptionInfo &Option,
                    const RuleOptions *Options, std::string *Problem) {
  std::string Key = std::string(Info.Id) + "." + Option.Name;
  std::optional<std::string> Text = Options ? Options->get(Key) : std::nullopt;
  if (!Text)
    return Option.Default;
  unsigned Value = 0;
  if (llvm::StringRef(*Text).trim().getAsInteger(10, Value)) {
    if (Problem)
      *Problem = "option " + Key + " is '" + *Text +
                 "', not a non-negative integer; its default, " +
                 std::to_string(Option.Default) + ", is used";
    return Option.Default;
  }
  return Value;
}

} // namespace torchlint
