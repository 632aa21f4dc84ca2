#include "UntrustedFlags.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

namespace torchlint {

namespace {
enum class Effect { Silent, LoadsCode, Unchecked, ReadsConfig, WritesFiles };

struct FlagRule {
  const char *Spelling;
  /// The value may follow as the next argument (`-MF file`).
  bool SeparateValue;
  /// Anything starting with Spelling matches (`-fplugin=x.so`).
  bool Prefix;
  Effect What;
};

// clang's driver accepts each of these; none is needed to parse a file.
constexpr FlagRule Rules[] = {
    {"-fplugin=", false, true, Effect::LoadsCode},
    {"-fpass-plugin=", false, true, Effect::LoadsCode},
    {"-fplugin-arg-", false, true, Effect::LoadsCode},
    // cc1 and LLVM options pass straight through the driver's checks.
    {"-Xclang", true, false, Effect::Unchecked},
    {"-Xpreprocessor", true, false, Effect::Unchecked},
    {"-Wp,", false, true, Effect::Unchecked},
    {"-mllvm", true, false, Effect::Unchecked},
    {"--config=", false, true, Effect::ReadsConfig},
    {"--config", true, false, Effect::ReadsConfig},
    {"-ftime-trace", false, true, Effect::WritesFiles},
    {"-save-temps", false, true, Effect::WritesFiles},
    {"-MJ", true, true, Effect::WritesFiles},
    {"--serialize-diagnostics", true, true, Effect::WritesFiles},
    {"-fcrash-diagnostics-dir=", false, true, Effect::WritesFiles},
    {"-fproc-stat-report", false, true, Effect::WritesFiles},
    {"-fmodules-cache-path=", false, true, Effect::WritesFiles},
    {"-fmodules", false, false, Effect::WritesFiles},
    {"-fcxx-modules", false, false, Effect::WritesFiles},
    {"-fimplicit-modules", false, false, Effect::WritesFiles},
    // The build's own precompiled header, made by another compiler.
    {"-include-pch", true, true, Effect::Silent},
    {"-o", true, true, Effect::Silent},
    {"-MF", true, true, Effect::Silent},
    {"-MT", true, true, Effect::Silent},
    {"-MQ", true, true, Effect::Silent},
    {"-MD", false, false, Effect::Silent},
    {"-MMD", false, false, Effect::Silent},
    {"-MP", false, false, Effect::Silent},
    {"-MG", false, false, Effect::Silent},
    {"-M", false, false, Effect::Silent},
    {"-MM", false, false, Effect::Silent},
};

const char *why(Effect What) {
  switch (What) {
  case Effect::LoadsCode:
    return "it can load code into torchlint";
  case Effect::Unchecked:
    return "it passes options to clang's internals unchecked";
  case Effect::ReadsConfig:
    return "it reads flags from a file";
  case Effect::WritesFiles:
    return "it writes files";
  default:
    return "";
  }
}

/// A macro definition passed through to the preprocessor is safe to keep:
/// distributions' build flags write `-Wp,-D_FORTIFY_SOURCE=2`.
bool isMacroOption(llvm::StringRef Option) {
  return Option.size() > 2 &&
         (Option.starts_with("-D") || Option.starts_with("-U"));
}

bool onlyMacroOptions(llvm::StringRef CommaSeparated) {
  llvm::SmallVector<llvm::StringRef, 4> Options;
  CommaSeparated.split(Options, ',');
  return llvm::all_of(Options, isMacroOption);
}

const FlagRule *ruleFor(llvm::StringRef Arg) {
  for (const FlagRule &Rule : Rules) {
    if (Arg == Rule.Spelling)
      return &Rule;
    if (Rule.Prefix && Arg.starts_with(Rule.Spelling))
      return &Rule;
  }
  return nullptr;
}
} // namespace

SanitizedCommand dropUnsafeFlags(const std::vector<std::string> &Arguments) {
  SanitizedCommand Result;
  for (size_t I = 0; I < Arguments.size(); ++I) {
    llvm::StringRef Arg = Arguments[I];
    // clang-cl hands `/clang:-flag` to its driver as `-flag`.
    if (!Arg.consume_front("/clang:"))
      Arg.consume_front("-clang:");
    const FlagRule *Rule = I == 0 ? nullptr : ruleFor(Arg);
    if (!Rule) {
      Result.Arguments.push_back(Arguments[I]);
      continue;
    }
    std::string Written = Arguments[I];
    std::string Value;
    // `-MF file`, `-Xclang -load`: the value is the next argument.
    if (Rule->SeparateValue && Arg == Rule->Spelling &&
        I + 1 < Arguments.size()) {
      Value = Arguments[++I];
      Written += " " + Value;
    }
    Effect What = Rule->What;
    if (Arg == "-Xpreprocessor" && isMacroOption(Value)) {
      Result.Arguments.insert(Result.Arguments.end(),
                              {Arguments[I - 1], Value});
      continue;
    }
    if (Arg.starts_with("-Wp,") && onlyMacroOptions(Arg.drop_front(4))) {
      Result.Arguments.push_back(Written);
      continue;
    }
    if (Arg == "-Xclang") {
      llvm::StringRef Option = Value;
      // CMake's precompiled headers for clang: `-Xclang -include -Xclang
      // cmake_pch.hxx` is a plain forced include, which the sources may rely
      // on (kept as a cc1 option, as the driver's -include would pick up the
      // .pch beside it); the .pch itself was built by another compiler and
      // is dropped.
      if (Option == "-include" && I + 2 < Arguments.size() &&
          Arguments[I + 1] == "-Xclang") {
        Result.Arguments.insert(
            Result.Arguments.end(),
            {"-Xclang", "-include", "-Xclang", Arguments[I + 2]});
        I += 2;
        continue;
      }
      if (Option == "-include-pch" && I + 2 < Arguments.size() &&
          Arguments[I + 1] == "-Xclang") {
        I += 2;
        continue;
      }
      if (Option == "-load" || Option.starts_with("-plugin") ||
          Option.starts_with("-add-plugin"))
        What = Effect::LoadsCode;
      // The value of `-Xclang -load -Xclang x.so` goes with it.
      if (What == Effect::LoadsCode && Option == "-load" &&
          I + 2 < Arguments.size() && Arguments[I + 1] == "-Xclang") {
        Written += " -Xclang " + Arguments[I + 2];
        I += 2;
      }
    }
    if (What != Effect::Silent)
      Result.Dropped.push_back("'" + Written + "' (" + why(What) + ")");
  }
  // A config file beside the compiler that the command names would be read
  // too (clang++.cfg), and the compiler may be the pull request's own.
  if (!Result.Arguments.empty())
    Result.Arguments.insert(Result.Arguments.begin() + 1,
                            "--no-default-config");
  return Result;
}

} // namespace torchlint
