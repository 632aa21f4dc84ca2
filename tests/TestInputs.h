//===--- TestInputs.h - The test-inputs project, as the tests see it -*- C++
//-*-//
//
// The generations of libtorch headers the tests analyze against, the programs
// each builds, their annotations, and the analyzer runs over them, made once
// per test process and shared by the suites.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TESTS_TESTINPUTS_H
#define TORCHLINT_TESTS_TESTINPUTS_H

#include "Subprocess.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace torchlint::test {

using LineRule = std::pair<unsigned, std::string>;

/// One finding a line of a test-input expects:
///   // expect: rule-id [level] "message substring", other-rule
/// Level and text are optional; rules are separated by commas.
struct Expectation {
  unsigned Line = 0;
  std::string Rule;
  std::string Level;
  std::string Text;
};

/// A note a line expects, of any finding: // expect-note: "text"
struct NoteExpectation {
  unsigned Line = 0;
  std::string Text;
};

struct Annotations {
  std::vector<Expectation> Findings;
  std::vector<NoteExpectation> Notes;
  /// The (line, rule) pairs of Findings.
  std::multiset<LineRule> lineRules() const;
};

/// The annotations of a file; throws std::runtime_error naming the file and
/// line of one that does not parse.
Annotations readAnnotations(const std::string &Path);

/// The `// expect:` annotations of a file: (line, rule) pairs.
std::multiset<LineRule> annotations(const std::string &Path);

/// The words of a program's `// torchlint-test:` lines, in order, over its
/// files.
std::vector<std::string> programMarks(const std::string &Program);

/// The rules off by default, as `torchlint --list-checks --checks='*'`
/// marks them.
const std::set<std::string> &rulesOffByDefault();
/// The rules off by default that a program enables with a line of its own,
/// `// torchlint-test: checks=RULE[,RULE]`: the specification runs them
/// there only, as a user's --checks would.
std::set<std::string> enabledOffRules(const std::string &Program);
/// clang-tidy's -checks for Program: every rule the CLI runs for it.
std::string tidyChecksFor(const std::string &Program);

/// The program a 2.4-API twin restates (`// torchlint-test: twin-of NAME`),
/// empty when Program is no twin.
std::string twinOf(const std::string &Program);

/// A generation of libtorch headers and the test-inputs database configured
/// against it.
struct Generation {
  std::string Name;
  int Major;
  std::string Database;
};
const std::vector<Generation> &generations();
const Generation &generation(const std::string &Name);

/// Program names that build with libtorch Major (0: any): the stem of a
/// `.cpp` of test-inputs/, or a folder of it holding the units and headers
/// of one multi-unit program.
std::vector<std::string> programs(int Major = 0);
/// Those programs that have a golden file (`.fixed.cpp`, `.fixed.h`).
std::vector<std::string> goldens(int Major = 0);
/// The programs of Names that are one `.cpp`.
std::vector<std::string> singleFile(std::vector<std::string> Names);
/// The program is a folder of units and headers.
bool isMultiUnit(const std::string &Program);
/// The program's files, units and headers, sorted; goldens left out.
std::vector<std::string> programFiles(const std::string &Program);
/// The program's translation units.
std::vector<std::string> programUnits(const std::string &Program);
/// A file's golden: `name.fixed.cpp` beside `name.cpp`, `x.fixed.h` beside
/// `x.h`; it may not exist.
std::string goldenOf(const std::string &File);
/// The annotations of all of a program's files.
Annotations programAnnotations(const std::string &Program);
/// "<generation>/<program>" for every program each generation builds.
std::vector<std::string> cases(bool GoldenOnly);
std::pair<const Generation &, std::string> splitCase(const std::string &Case);
std::string programPath(const std::string &Program,
                        const std::string &Suffix = ".cpp");

/// The findings of one analyzer run, by file.
struct Analysis {
  RunResult Run;
  nlohmann::json Output;
  std::map<std::string, std::vector<nlohmann::json>> ByFile;
  std::map<std::string, std::string> Failures;
  /// The SARIF log the same run exported.
  std::string Sarif;
};
Analysis analyze(const std::vector<std::string> &Args);

/// Where File of test-inputs/ lies in a copy of the folder at Directory.
std::string copyPath(const std::string &File, const std::string &Directory);
/// Copies the program's files into Directory, laid out as in test-inputs/
/// (with their goldens' contents where Golden and one exists); returns the
/// copies.
std::vector<std::string> copyProgram(const std::string &Program,
                                     const std::string &Directory, bool Golden);
/// A compilation database in Directory for the copies (copyProgram) of the
/// named programs placed there: each entry is the unit's own, pointed at its
/// copy.
std::string databaseFor(const Generation &G,
                        const std::vector<std::string> &Names,
                        const std::string &Directory);

/// A file of tests/data.
std::string dataFile(const std::string &Name);
/// A compilation database (in a fresh directory) for files compiled as
/// test-inputs/ is, with the same compiler, flags and libtorch. Files are
/// named in tests/data, or given as absolute paths.
std::string dataDatabase(const std::vector<std::string> &Files);

/// The category the specification runs give their SARIF logs.
inline constexpr const char *SarifCategory = "torchlint/test-inputs";

/// The one rule the specification runs (TORCHLINT_SPEC_RULE, set by
/// scripts/check-rule.sh), or empty for all of them. Then the analyzer runs
/// with only that rule over only the programs that name it.
std::string onlyRule();

/// The one cache of this test process's runs against G (under
/// TORCHLINT_SPEC_CACHE when set, so that runs share it).
std::string cacheFolder(const Generation &G);
/// "--cache-dir=" and cacheFolder(G).
std::string cacheDirectory(const Generation &G);

/// The regular files under Directory, at any depth, whose names end with
/// Extension; none when it does not exist.
std::vector<std::string> filesWithExtension(const std::string &Directory,
                                            const std::string &Extension);
/// For each unit of a cache folder's results, the precompiled headers its
/// parse read, as the entries record them among the unit's inputs.
std::map<std::string, std::set<std::string>>
headersReadByUnit(const std::string &Cache);
/// The CLI over every program of G with the given acceleration option (a
/// --cache-dir, or --no-cache), also exporting a SARIF log.
Analysis analyzeTestInputs(const Generation &G,
                           const std::string &Acceleration);
/// analyzeTestInputs() with G's cache, run once: a cold run of the cache.
const Analysis &originals(const Generation &G);

struct FixRun {
  std::string Directory;
  RunResult Run;
  /// What --fix left in each copy (by copyPath), read as soon as it ended.
  std::map<std::string, std::string> Fixed;
};
/// The CLI's --fix over copies of G's programs that have golden files.
const FixRun &fixedCopies(const Generation &G);
struct GoldenRun {
  /// Copies of the programs with goldens, the goldens' contents under the
  /// originals' names (copyPath), so that a unit includes its fixed header.
  std::string Directory;
  /// --fix again, over the golden files: it must find nothing to fix.
  Analysis Result;
};
/// A second --fix, over G's golden files written into fixedCopies()'s
/// folder: where the first --fix left exactly the goldens, every unit is
/// read back from the cache that the first run's last round filled, so the
/// goldens' own analysis costs no parse.
const GoldenRun &goldenAnalysis(const Generation &G);

} // namespace torchlint::test

#endif // TORCHLINT_TESTS_TESTINPUTS_H
