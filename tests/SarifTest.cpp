//===--- SarifTest.cpp - SARIF for code review ----------------------------===//
//
// The logs the suite produces go through the OASIS schema and Microsoft's
// SARIF multitool with GitHub's ingestion rules; the log of test-inputs keeps
// every field a reviewer relies on filled; columns are UTF-16; a baseline
// hides what was already known.
//
//===----------------------------------------------------------------------===//

#include "TestInputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <regex>

namespace fs = std::filesystem;
using nlohmann::json;

namespace torchlint::test {
namespace {

RunResult torchlint(const std::vector<std::string> &Args) {
  return run(torchlintBinary(), Args);
}

TEST(Specification, SarifLogsPassBothValidators) {
  std::vector<std::string> Logs;
  for (const Generation &G : generations()) {
    ASSERT_TRUE(fs::exists(originals(G).Sarif)) << originals(G).Run.Stderr;
    Logs.push_back(originals(G).Sarif);
  }
  std::string Dir = temporaryDirectory();
  // A log without results, and one with a unit that could not be analyzed.
  RunResult Empty = torchlint({"--format=sarif", "-o", Dir + "/empty.sarif",
                               dataDatabase({"plain.cpp"})});
  ASSERT_EQ(Empty.ExitCode, 0) << Empty.Stderr;
  RunResult Failed = torchlint({"--format=sarif", "-o", Dir + "/failed.sarif",
                                dataDatabase({"broken.cpp", "plain.cpp"})});
  ASSERT_EQ(Failed.ExitCode, 2) << Failed.Stderr;
  Logs.push_back(Dir + "/empty.sarif");
  Logs.push_back(Dir + "/failed.sarif");
  // Both generations' logs merged, as CI merges shards: one run, every
  // result of either once.
  RunResult Merge =
      torchlint({"merge", Logs[0], Logs[1], "-o", Dir + "/merged.sarif"});
  ASSERT_EQ(Merge.ExitCode, 0) << Merge.Stderr;
  Logs.push_back(Dir + "/merged.sarif");
  std::set<std::string> Union;
  for (size_t I = 0; I < 2; ++I) {
    json Generation = json::parse(readFile(Logs[I]));
    for (const json &Result : Generation["runs"][0]["results"])
      Union.insert(Result["ruleId"].dump() +
                   Result["locations"][0]["physicalLocation"]["artifactLocation"]
                                      ["uri"].dump() +
                   Result["partialFingerprints"].dump());
  }
  ASSERT_FALSE(Union.empty());
  json Merged = json::parse(readFile(Dir + "/merged.sarif"));
  ASSERT_EQ(Merged["runs"].size(), 1u);
  EXPECT_EQ(Merged["runs"][0]["results"].size(), Union.size());
  EXPECT_EQ(Merged["runs"][0]["invocations"].size(), 2u);

  std::vector<std::string> Args = {TORCHLINT_SARIF_VALIDATOR,
                                   TORCHLINT_SARIF_SCHEMA};
  Args.insert(Args.end(), Logs.begin(), Logs.end());
  RunResult Validation = run(TORCHLINT_NODE, Args);
  EXPECT_EQ(Validation.ExitCode, 0) << Validation.Stdout << Validation.Stderr;

  json FailedLog = json::parse(readFile(Dir + "/failed.sarif"));
  const json &Invocation = FailedLog["runs"][0]["invocations"][0];
  EXPECT_EQ(Invocation["executionSuccessful"], false);
  ASSERT_EQ(Invocation["toolExecutionNotifications"].size(), 1u);
  EXPECT_NE(Invocation["toolExecutionNotifications"][0]["message"]["text"]
                .get<std::string>()
                .find("'missing_header.h' file not found"),
            std::string::npos);
  EXPECT_TRUE(json::parse(readFile(Dir + "/empty.sarif"))["runs"][0]["results"]
                  .empty());
}

TEST(Specification, SarifLogOfTestInputsIsComplete) {
  const Generation &G = generations().front();
  const Analysis &A = originals(G);
  json Log = json::parse(readFile(A.Sarif));
  EXPECT_EQ(Log["version"], "2.1.0");
  EXPECT_NE(Log["$schema"].get<std::string>().find("sarif-schema-2.1.0"),
            std::string::npos);
  ASSERT_EQ(Log["runs"].size(), 1u);
  const json &Run = Log["runs"][0];
  const json &Driver = Run["tool"]["driver"];
  EXPECT_EQ(Driver["name"], "torchlint");
  EXPECT_FALSE(Driver["semanticVersion"].get<std::string>().empty());
  EXPECT_EQ(Driver["informationUri"].get<std::string>().rfind("https://", 0), 0u);
  EXPECT_EQ(Run["columnKind"], "utf16CodeUnits");
  EXPECT_EQ(Run["automationDetails"]["id"], SarifCategory);
  EXPECT_EQ(Run["invocations"][0]["executionSuccessful"], true);
  std::string Root = Run["originalUriBaseIds"]["%SRCROOT%"]["uri"];
  EXPECT_EQ(Root.back(), '/');

  // Rules: every enabled one, described from its docs page.
  ASSERT_EQ(Driver["rules"].size(), A.Output["rules"].size());
  fs::path Docs = fs::path(testInputsDir()).parent_path() / "docs" / "rules";
  for (const json &Rule : Driver["rules"]) {
    std::string Id = Rule["id"];
    EXPECT_NE(Rule["name"], Rule["id"]);
    EXPECT_FALSE(Rule["shortDescription"]["text"].get<std::string>().empty());
    // The lead of the rule's docs page, its one description.
    std::string Full = Rule["fullDescription"]["text"].get<std::string>();
    EXPECT_FALSE(Full.empty()) << Rule["id"];
    EXPECT_LE(Full.size(), 1024u);
    EXPECT_EQ(Rule["help"]["markdown"], readFile((Docs / (Id + ".md")).string()))
        << Id << ": help.markdown is not docs/rules/" << Id << ".md";
    EXPECT_FALSE(Rule["help"]["text"].get<std::string>().empty());
    EXPECT_NE(Rule["helpUri"].get<std::string>().find("docs/rules/" + Id + ".md"),
              std::string::npos);
    EXPECT_TRUE(Rule["defaultConfiguration"]["level"].is_string());
    EXPECT_FALSE(Rule["properties"]["tags"].empty());
    EXPECT_TRUE(Rule["properties"]["precision"] == "very-high" ||
                Rule["properties"]["precision"] == "high" ||
                Rule["properties"]["precision"] == "medium" ||
                Rule["properties"]["precision"] == "low");
  }

  // Results: one per finding, each with every field filled.
  ASSERT_EQ(Run["results"].size(), A.Output["findings"].size());
  for (size_t I = 0; I < Run["results"].size(); ++I) {
    const json &R = Run["results"][I];
    const json &F = A.Output["findings"][I];
    SCOPED_TRACE(F["file"].get<std::string>() + ":" + F["line"].dump());
    EXPECT_EQ(R["ruleId"], F["rule"]);
    EXPECT_EQ(Driver["rules"][R["ruleIndex"].get<size_t>()]["id"], R["ruleId"]);
    EXPECT_EQ(R["level"], F["level"]);
    std::string Text = R["message"]["text"];
    // The first sentence stands alone: the finding's message, capitalised
    // (unless it opens with a quoted name) and closed with a period.
    std::string First = F["message"];
    First[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(First[0])));
    // The text embeds links to the notes, so its literal brackets and
    // backslashes are escaped.
    std::string Escaped;
    for (char C : First) {
      if (C == '[' || C == ']' || C == '\\')
        Escaped += '\\';
      Escaped += C;
    }
    First = Escaped;
    EXPECT_EQ(Text.substr(0, First.size() + 1), First + ".") << Text;
    EXPECT_TRUE(std::isupper(static_cast<unsigned char>(Text[0])) || Text[0] == '\'')
        << Text;
    const json &Where = R["locations"][0]["physicalLocation"];
    EXPECT_EQ(Where["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    EXPECT_EQ(Root + Where["artifactLocation"]["uri"].get<std::string>(),
              "file://" + F["file"].get<std::string>());
    for (const char *Field : {"startLine", "startColumn", "endLine", "endColumn"})
      EXPECT_TRUE(Where["region"].contains(Field)) << Field;
    EXPECT_EQ(Where["region"]["startLine"], F["line"]);
    EXPECT_TRUE(std::regex_match(
        R["partialFingerprints"]["primaryLocationLineHash"].get<std::string>(),
        std::regex("[0-9a-f]+:[0-9]+")));
    // Notes as related locations, each referenced from the message.
    ASSERT_EQ(R.value("relatedLocations", json::array()).size(),
              F["notes"].size());
    for (const json &Related : R.value("relatedLocations", json::array()))
      EXPECT_NE(Text.find("](" + Related["id"].dump() + ")"), std::string::npos);
    EXPECT_EQ(R.contains("fixes"), !F["fixes"].empty());
    EXPECT_EQ(R.contains("properties") && R["properties"].contains("replayRecipe"),
              F.contains("recipe"));
    if (R["ruleId"] == "torch-device-mismatch")
      EXPECT_FALSE(R["codeFlows"][0]["threadFlows"][0]["locations"].empty());
  }
}

TEST(Sarif, ColumnsAreUtf16CodeUnits) {
  std::string Database = dataDatabase({"non_ascii.cpp"});
  json Json = json::parse(torchlint({"--format=json", Database}).Stdout);
  std::string Dir = temporaryDirectory();
  torchlint({"--format=sarif", "-o", Dir + "/log.sarif", Database});
  json Sarif = json::parse(readFile(Dir + "/log.sarif"));
  ASSERT_EQ(Json["findings"].size(), 1u);
  ASSERT_EQ(Sarif["runs"][0]["results"].size(), 1u);
  // "é" is two bytes and one UTF-16 unit, "😀" four bytes and two units.
  unsigned Bytes = Json["findings"][0]["column"];
  const json &Region =
      Sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
  EXPECT_EQ(Region["startColumn"].get<unsigned>(), Bytes - 3);
  EXPECT_EQ(Region["endColumn"].get<unsigned>(),
            Json["findings"][0]["endColumn"].get<unsigned>() - 3);
}

TEST(Sarif, BaselineReportsOnlyNewFindings) {
  std::string Dir = temporaryDirectory();
  std::string Program = Dir + "/program.cpp";
  std::string Original = readFile(dataFile("baseline_program.cpp"));
  writeFile(Program, Original);
  std::string Database = dataDatabase({Program});
  std::string Root = "--source-root=" + Dir;

  RunResult Base = torchlint({"--format=sarif", "-o", Dir + "/base.sarif",
                              Root, Database});
  ASSERT_EQ(Base.ExitCode, 1) << Base.Stderr;
  ASSERT_EQ(json::parse(readFile(Dir + "/base.sarif"))["runs"][0]["results"].size(),
            1u);
  std::string Baseline = "--baseline=" + Dir + "/base.sarif";

  // The same code, moved down a few lines: nothing new.
  writeFile(Program, "// a\n// few\n// lines\n" + Original);
  RunResult Moved = torchlint({"--format=json", Baseline, Root, Database});
  EXPECT_EQ(Moved.ExitCode, 0) << Moved.Stdout << Moved.Stderr;
  EXPECT_TRUE(json::parse(Moved.Stdout)["findings"].empty());

  // A real new issue: exactly one new finding, on its line. (GitHub's
  // fingerprint hashes 100 characters from the start of a line, so it is
  // added above the known one, whose fingerprint stays the same.)
  std::string Edited = Original;
  std::string Anchor = "  auto x = ";
  Edited.replace(Edited.find(Anchor), 0, "  auto y = torch::tensor({3.0f}).cuda();\n");
  writeFile(Program, "// a\n// few\n// lines\n" + Edited);
  RunResult Added = torchlint({"--format=json", Baseline, Root, Database});
  EXPECT_EQ(Added.ExitCode, 1) << Added.Stderr;
  json Findings = json::parse(Added.Stdout)["findings"];
  ASSERT_EQ(Findings.size(), 1u) << Added.Stdout;
  EXPECT_EQ(Findings[0]["line"], 8);

  // A baseline that cannot be read is one clear error, before any analysis.
  RunResult Bad = torchlint({"--baseline=/nonexistent.sarif", Database});
  EXPECT_EQ(Bad.ExitCode, 2);
  EXPECT_NE(Bad.Stderr.find("/nonexistent.sarif: cannot read the baseline"),
            std::string::npos)
      << Bad.Stderr;
}

} // namespace
} // namespace torchlint::test
