#include "UntrustedFlags.h"

#include "ForeignFlags.h"

#include "clang/Driver/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"

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

llvm::opt::InputArgList parse(const std::vector<const char *> &Argv, bool Cl,
                              unsigned &MissingIndex, unsigned &MissingCount) {
  return clang::driver::getDriverOptTable().ParseArgs(
      Argv, MissingIndex, MissingCount,
      llvm::opt::Visibility(Cl ? options::CLOption : options::ClangOption));
}

Effect effectOf(const llvm::opt::Arg &A, unsigned Depth = 0);

/// What a flag does whose value the driver parses as a flag of its own:
/// clang-cl's /clang:-flag, -Xarch_host -flag, -Xopenmp-target -flag.
Effect effectOfInnerFlag(llvm::StringRef Flag, unsigned Depth) {
  if (Depth > 2)
    return Effect::Unchecked;
  std::string Copy = Flag.str();
  std::vector<const char *> Argv{Copy.c_str()};
  unsigned MissingIndex = 0, MissingCount = 0;
  llvm::opt::InputArgList Inner =
      parse(Argv, /*Cl=*/false, MissingIndex, MissingCount);
  Effect Worst = Effect::Keep;
  for (const llvm::opt::Arg *A : Inner)
    Worst = std::max(Worst, effectOf(*A, Depth + 1));
  // A flag that takes its value from the next /clang: cannot be judged alone.
  if (MissingCount > 0)
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
  std::vector<const char *> Argv;
  for (size_t I = 1; I < Arguments.size(); ++I)
    Argv.push_back(Arguments[I].c_str());
  unsigned MissingIndex = 0, MissingCount = 0;
  llvm::opt::InputArgList Parsed =
      parse(Argv, isClDriverMode(Arguments), MissingIndex, MissingCount);
  // A flag at the end that lacks its value is not passed on.
  size_t Usable = MissingCount > 0 ? MissingIndex : Argv.size();

  // Each parsed flag spans the arguments up to the next one's: its values.
  std::vector<const llvm::opt::Arg *> Flags(Parsed.begin(), Parsed.end());
  llvm::sort(Flags, [](const llvm::opt::Arg *L, const llvm::opt::Arg *R) {
    return L->getIndex() < R->getIndex();
  });
  auto EndOf = [&](size_t K) {
    return std::min<size_t>(
        K + 1 < Flags.size() ? Flags[K + 1]->getIndex() : Usable, Usable);
  };
  auto Spelled = [&](size_t From, size_t To) {
    std::string Text;
    for (size_t I = From; I < To; ++I)
      Text += (Text.empty() ? "" : " ") + std::string(Argv[I]);
    return Text;
  };
  std::vector<std::string> Kept{Arguments.front(), "--no-default-config"};
  auto Keep = [&](size_t From, size_t To) {
    for (size_t I = From; I < To; ++I)
      Kept.push_back(Argv[I]);
  };
  size_t Copied = 0;
  for (size_t K = 0; K < Flags.size(); ++K) {
    const llvm::opt::Arg &A = *Flags[K];
    if (A.getIndex() >= Usable)
      break;
    Keep(Copied, A.getIndex());
    size_t End = EndOf(K);
    Copied = End;
    Effect What = effectOf(A);
    if (A.getOption().matches(options::OPT_Xclang)) {
      llvm::StringRef Option = A.getValue();
      const llvm::opt::Arg *Next =
          K + 1 < Flags.size() ? Flags[K + 1] : nullptr;
      bool Paired = Next && Next->getIndex() < Usable &&
                    Next->getOption().matches(options::OPT_Xclang);
      // CMake's precompiled headers for clang: `-Xclang -include -Xclang
      // cmake_pch.hxx` is a plain forced include, which the sources may rely
      // on; `-Xclang -include-pch -Xclang x.pch` was made by another
      // compiler.
      if (Paired && (Option == "-include" || Option == "-include-pch")) {
        if (Option == "-include")
          Keep(A.getIndex(), EndOf(K + 1));
        Copied = EndOf(++K);
        continue;
      }
      if (Option == "-load" || Option.starts_with("-plugin") ||
          Option.starts_with("-add-plugin")) {
        What = Effect::LoadsCode;
        // The value of `-Xclang -load -Xclang x.so` goes with it.
        if (Paired && Option == "-load")
          End = Copied = EndOf(++K);
      }
    }
    if (What == Effect::Keep) {
      Keep(A.getIndex(), End);
      continue;
    }
    if (What != Effect::Silent)
      Result.Dropped.push_back("'" + Spelled(A.getIndex(), End) + "' (" +
                               why(What) + ")");
  }
  Keep(Copied, Usable);
  Result.Arguments = std::move(Kept);
  return Result;
}

} // namespace torchlint
