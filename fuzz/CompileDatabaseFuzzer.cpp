//===--- CompileDatabaseFuzzer.cpp - compile_commands.json from strangers -===//
//
// The database is parsed and each command made safe and adapted for clang,
// as the analyzer does before each parse. Beyond not crashing, what comes
// out must hold no flag that loads code, reads a configuration file, writes
// a file or passes options to clang's internals unchecked: clang's driver
// parses the result and names each flag it finds.
//
//===----------------------------------------------------------------------===//

#include "compile/CompileDatabase.h"
#include "compile/DriverCommand.h"
#include "compile/ForeignFlags.h"
#include "compile/UntrustedFlags.h"

#include "clang/Driver/Options.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using namespace torchlint;
namespace options = clang::driver::options;

namespace {
[[noreturn]] void unsafe(const std::string &Argument) {
  std::fprintf(stderr, "unsafe argument survived: '%s'\n", Argument.c_str());
  std::abort();
}

bool isMacroOption(llvm::StringRef Option) {
  return Option.size() > 2 &&
         (Option.starts_with("-D") || Option.starts_with("-U"));
}

bool isForbidden(const llvm::opt::Option &O) {
  for (unsigned Id :
       {options::OPT_fplugin_EQ, options::OPT_fpass_plugin_EQ,
        options::OPT_fplugin_arg, options::OPT_mllvm, options::OPT_config,
        options::OPT_ftime_trace, options::OPT_ftime_trace_EQ,
        options::OPT_save_temps, options::OPT_save_temps_EQ, options::OPT_MJ,
        options::OPT__serialize_diags, options::OPT_fmodules,
        options::OPT_fmodules_cache_path, options::OPT_fcxx_modules,
        options::OPT_fimplicit_modules, options::OPT_fcrash_diagnostics_dir,
        options::OPT_fproc_stat_report, options::OPT_fproc_stat_report_EQ,
        options::OPT_config_system_dir_EQ, options::OPT_config_user_dir_EQ,
        // The outputs dropped without a word.
        options::OPT_o, options::OPT_MF, options::OPT_MD, options::OPT_MMD,
        options::OPT_M, options::OPT_MM, options::OPT_include_pch})
    if (O.matches(Id))
      return true;
  return false;
}

void checkSafe(const std::vector<const char *> &Argv, bool Cl) {
  unsigned MissingIndex = 0, MissingCount = 0;
  llvm::opt::InputArgList Parsed = clang::driver::getDriverOptTable().ParseArgs(
      Argv, MissingIndex, MissingCount,
      llvm::opt::Visibility(Cl ? options::CLOption : options::ClangOption));
  // The one frontend option let through is a forced include: `-Xclang
  // -include -Xclang <file>`.
  bool ExpectIncludedFile = false;
  std::vector<const char *> ForDriver;
  for (const llvm::opt::Arg *A : Parsed) {
    const llvm::opt::Option &O = A->getOption();
    std::string Spelled = A->getAsString(Parsed);
    if (isForbidden(O))
      unsafe(Spelled);
    if (O.matches(options::OPT_Xpreprocessor) ||
        O.matches(options::OPT_Wp_COMMA))
      for (const char *Value : A->getValues())
        if (!isMacroOption(Value))
          unsafe(Spelled);
    if (O.matches(options::OPT_Xclang)) {
      if (!ExpectIncludedFile && llvm::StringRef(A->getValue()) != "-include")
        unsafe(Spelled);
      ExpectIncludedFile = !ExpectIncludedFile;
    }
    // clang-cl's /clang:, and the flags for one target of an offloading
    // compile, are parsed again as clang's own.
    if (O.matches(options::OPT__SLASH_clang) ||
        O.matches(options::OPT_Xarch__) || O.matches(options::OPT_Xarch_host) ||
        O.matches(options::OPT_Xarch_device) ||
        O.matches(options::OPT_Xopenmp_target) ||
        O.matches(options::OPT_Xopenmp_target_EQ))
      ForDriver.push_back(A->getValues().back());
  }
  if (ExpectIncludedFile)
    unsafe("-Xclang -include without a file");
  if (!ForDriver.empty())
    checkSafe(ForDriver, /*Cl=*/false);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  llvm::Expected<CompileDatabase> Database =
      parseCompileDatabase(Text, "/fuzz/compile_commands.json");
  if (!Database) {
    llvm::consumeError(Database.takeError());
    return 0;
  }
  for (const CompileEntry &Entry : Database->Entries) {
    if (Entry.Arguments.empty())
      std::abort();
    std::vector<std::string> Adapted =
        adaptForeignFlags(dropUnsafeFlags(Entry.Arguments).Arguments);
    std::vector<const char *> Argv;
    for (size_t I = 1; I < Adapted.size(); ++I)
      Argv.push_back(Adapted[I].c_str());
    checkSafe(Argv, isClDriverMode(Adapted));
  }
  return 0;
}
