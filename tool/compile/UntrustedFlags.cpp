#include "compile/UntrustedFlags.h"

#include "compile/DriverCommand.h"

#include "clang/Driver/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <initializer_list>

namespace torchlint {

namespace {
namespace options = clang::driver::options;

enum class Effect {
  Keep,
  Silent,
  LoadsCode,
  Unchecked,
  ReadsConfig,
  WritesFiles
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

bool isAnyOf(const llvm::opt::Option &O, std::initializer_list<unsigned> Ids) {
  // matches() also holds for an alias (--save-temps, --write-dependencies).
  return llvm::any_of(Ids, [&](unsigned Id) { return O.matches(Id); });
}

/// A macro definition passed through to the preprocessor is safe to keep:
/// distributions' build flags write `-Wp,-D_FORTIFY_SOURCE=2`.
bool isMacroOption(llvm::StringRef Option) {
  return Option.size() > 2 &&
         (Option.starts_with("-D") || Option.starts_with("-U"));
}

Effect effectOf(const llvm::opt::Arg &A, unsigned Depth = 0);

/// What a flag does whose value the driver parses as a flag of its own:
/// clang-cl's /clang:-flag, -Xarch_host -flag, -Xopenmp-target -flag.
Effect effectOfInnerFlag(llvm::StringRef Flag, unsigned Depth) {
  if (Depth > 2)
    return Effect::Unchecked;
  DriverCommand Inner({Flag.str()}, /*Cl=*/false);
  Effect Worst = Effect::Keep;
  for (const DriverCommand::Flag &F : Inner.flags())
    Worst = std::max(Worst, effectOf(*F.Parsed, Depth + 1));
  // A flag that takes its value from the next /clang: cannot be judged alone.
  if (Inner.end() < Inner.size())
    Worst = std::max(Worst, Effect::Unchecked);
  return Worst;
}

Effect effectOf(const llvm::opt::Arg &A, unsigned Depth) {
  const llvm::opt::Option &O = A.getOption();
  if (isAnyOf(O, {options::OPT_fplugin_EQ, options::OPT_fpass_plugin_EQ,
                  options::OPT_fplugin_arg}))
    return Effect::LoadsCode;
  // cc1 and LLVM options pass straight through the driver's checks.
  if (isAnyOf(O, {options::OPT_Xclang, options::OPT_mllvm}))
    return Effect::Unchecked;
  if (isAnyOf(O, {options::OPT_Xpreprocessor, options::OPT_Wp_COMMA}))
    return llvm::all_of(A.getValues(), isMacroOption) ? Effect::Keep
                                                      : Effect::Unchecked;
  if (isAnyOf(O, {options::OPT_config, options::OPT_config_system_dir_EQ,
                  options::OPT_config_user_dir_EQ}))
    return Effect::ReadsConfig;
  if (isAnyOf(O, {options::OPT_ftime_trace, options::OPT_ftime_trace_EQ,
                  options::OPT_save_temps, options::OPT_save_temps_EQ,
                  options::OPT_MJ, options::OPT__serialize_diags,
                  options::OPT_fcrash_diagnostics_dir,
                  options::OPT_fproc_stat_report,
                  options::OPT_fproc_stat_report_EQ,
                  options::OPT_fmodules_cache_path, options::OPT_fmodules,
                  options::OPT_fcxx_modules, options::OPT_fimplicit_modules}))
    return Effect::WritesFiles;
  // The outputs every build names, and the build's own precompiled header
  // (made by another compiler): dropped without a word.
  if (isAnyOf(O, {options::OPT_o, options::OPT_MF, options::OPT_MT,
                  options::OPT_MQ, options::OPT_MD, options::OPT_MMD,
                  options::OPT_MP, options::OPT_MG, options::OPT_M,
                  options::OPT_MM, options::OPT_include_pch}))
    return Effect::Silent;
  if (isAnyOf(O, {options::OPT__SLASH_clang, options::OPT_Xarch__,
                  options::OPT_Xarch_host, options::OPT_Xarch_device,
                  options::OPT_Xopenmp_target, options::OPT_Xopenmp_target_EQ}))
    return effectOfInnerFlag(A.getValues().back(), Depth);
  return Effect::Keep;
}
} // namespace

SanitizedCommand dropUnsafeFlags(const std::vector<std::string> &Arguments) {
  SanitizedCommand Result;
  if (Arguments.empty())
    return Result;
  DriverCommand Command({Arguments.begin() + 1, Arguments.end()},
                        isClDriverMode(Arguments));
  const std::vector<DriverCommand::Flag> &Flags = Command.flags();
  Result.Arguments = {Arguments.front(), "--no-default-config"};
  auto Keep = [&](size_t Begin, size_t End) {
    for (size_t I = Begin; I < End; ++I)
      Result.Arguments.push_back(Command.argument(I));
  };
  // A flag at the end that lacks its value is not passed on.
  for (size_t K = 0; K < Flags.size(); ++K) {
    const llvm::opt::Arg &A = *Flags[K].Parsed;
    size_t Begin = Flags[K].Begin, End = Flags[K].End;
    Effect What = effectOf(A);
    if (A.getOption().matches(options::OPT_Xclang)) {
      llvm::StringRef Option = A.getValue();
      bool Paired =
          K + 1 < Flags.size() &&
          Flags[K + 1].Parsed->getOption().matches(options::OPT_Xclang);
      // CMake's precompiled headers for clang: `-Xclang -include -Xclang
      // cmake_pch.hxx` is a plain forced include, which the sources may rely
      // on; `-Xclang -include-pch -Xclang x.pch` was made by another
      // compiler.
      if (Paired && (Option == "-include" || Option == "-include-pch")) {
        if (Option == "-include")
          Keep(Begin, Flags[K + 1].End);
        ++K;
        continue;
      }
      if (Option == "-load" || Option.starts_with("-plugin") ||
          Option.starts_with("-add-plugin")) {
        What = Effect::LoadsCode;
        // The value of `-Xclang -load -Xclang x.so` goes with it.
        if (Paired && Option == "-load")
          End = Flags[++K].End;
      }
    }
    if (What == Effect::Keep) {
      Keep(Begin, End);
      continue;
    }
    if (What != Effect::Silent)
      Result.Dropped.push_back("'" + Command.spelled(Begin, End) + "' (" +
                               why(What) + ")");
  }
  return Result;
}

} // namespace torchlint
