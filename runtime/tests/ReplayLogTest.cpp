#include "ReplayLog.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace torchlint::replay;
using nlohmann::ordered_json;

namespace {

std::string readFile(const std::string &Path) {
  std::ifstream In(Path);
  std::ostringstream Text;
  Text << In.rdbuf();
  return Text.str();
}

const std::string Sarif = TORCHLINT_RUNTIME_TEST_DATA "/findings.sarif";
const std::string Json = TORCHLINT_RUNTIME_TEST_DATA "/findings.json";

/// Adds a replay to every item, writes, reads back.
ordered_json annotated(const std::string &Path, size_t &Items) {
  ReplayLog Log = ReplayLog::load(Path);
  std::vector<ReplayItem> List = Log.items();
  Items = List.size();
  for (const ReplayItem &Item : List)
    Log.record(Item, {{"verdict", "no-gain"}}, "[replay: no-gain]");
  std::string Out = ::testing::TempDir() + "/annotated.json";
  Log.save(Out);
  ordered_json Read = ordered_json::parse(readFile(Out));
  std::remove(Out.c_str());
  return Read;
}

std::string stripSummary(std::string Text) {
  const std::string Suffix = " [replay: no-gain]";
  if (Text.size() >= Suffix.size() &&
      Text.compare(Text.size() - Suffix.size(), Suffix.size(), Suffix) == 0)
    Text.erase(Text.size() - Suffix.size());
  return Text;
}

} // namespace

TEST(ReplayLog, SarifRoundTripChangesOnlyReplayedResults) {
  ordered_json Original = ordered_json::parse(readFile(Sarif));
  size_t Items = 0;
  ordered_json Written = annotated(Sarif, Items);
  ASSERT_GT(Items, 0u);

  auto &Before = Original["runs"][0]["results"];
  auto &After = Written["runs"][0]["results"];
  ASSERT_EQ(Before.size(), After.size());
  size_t Replayed = 0;
  for (size_t I = 0; I < Before.size(); ++I) {
    bool HasRecipe = Before[I].contains("properties") &&
                     Before[I]["properties"].contains("replayRecipe");
    // Same result at the same place: nothing dropped or reordered.
    EXPECT_EQ(Before[I]["ruleId"], After[I]["ruleId"]);
    EXPECT_EQ(Before[I]["locations"], After[I]["locations"]);
    if (!HasRecipe) {
      EXPECT_EQ(Before[I], After[I]);
      continue;
    }
    ++Replayed;
    EXPECT_EQ(After[I]["properties"]["replay"]["verdict"], "no-gain");
    EXPECT_EQ(After[I]["message"]["text"].get<std::string>(),
              Before[I]["message"]["text"].get<std::string>() +
                  " [replay: no-gain]");
    After[I]["properties"].erase("replay");
    After[I]["message"]["text"] =
        stripSummary(After[I]["message"]["text"].get<std::string>());
  }
  EXPECT_EQ(Replayed, Items);
  // With the replay taken out, every other field is as it was, in order.
  EXPECT_EQ(Written.dump(), Original.dump());
}

TEST(ReplayLog, JsonRoundTripChangesOnlyReplayedFindings) {
  ordered_json Original = ordered_json::parse(readFile(Json));
  size_t Items = 0;
  ordered_json Written = annotated(Json, Items);
  ASSERT_GT(Items, 0u);
  for (auto &Finding : Written["findings"]) {
    if (!Finding.contains("replay"))
      continue;
    EXPECT_EQ(Finding["replay"]["verdict"], "no-gain");
    Finding.erase("replay");
    Finding["message"] = stripSummary(Finding["message"].get<std::string>());
  }
  EXPECT_EQ(Written.dump(), Original.dump());
}

TEST(ReplayLog, ItemsCarryRuleLocationAndRecipe) {
  ReplayLog Log = ReplayLog::load(Sarif);
  EXPECT_EQ(Log.format(), ReplayLog::Format::Sarif);
  for (const ReplayItem &Item : Log.items()) {
    EXPECT_EQ(Item.RuleId.rfind("torch-", 0), 0u) << Item.RuleId;
    EXPECT_NE(Item.Location.find(".cpp:"), std::string::npos) << Item.Location;
    EXPECT_TRUE(Item.Recipe.contains("scenario"));
  }
  EXPECT_EQ(ReplayLog::load(Json).format(), ReplayLog::Format::Json);
}

TEST(ReplayLog, ReplayingAgainReplacesTheEarlierSummary) {
  ReplayLog Log = ReplayLog::load(Sarif);
  ReplayItem First = Log.items().front();
  std::string Before = ordered_json::parse(
      Log.text())["runs"][0]["results"][First.Result]["message"]["text"];
  Log.record(First, {{"verdict", "no-gain"}}, "[replay: no-gain]");
  Log.record(First, {{"verdict", "confirmed"}}, "[replay: confirmed]");
  ordered_json Result =
      ordered_json::parse(Log.text())["runs"][0]["results"][First.Result];
  EXPECT_EQ(Result["message"]["text"], Before + " [replay: confirmed]");
  EXPECT_EQ(Result["properties"]["replay"]["verdict"], "confirmed");
}

TEST(ReplayLog, BadInputIsOneErrorNamingTheFile) {
  auto ErrorOf = [](const std::string &Text) {
    try {
      ReplayLog::parse(Text, "in.sarif");
    } catch (const LogError &E) {
      return std::string(E.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(ErrorOf("{\"runs\": ["), ErrorOf("{\"runs\": [")); // stable
  EXPECT_EQ(ErrorOf("{\"runs\": [").rfind("in.sarif: not valid JSON", 0), 0u);
  EXPECT_EQ(ErrorOf("[1, 2]").rfind("in.sarif: neither a SARIF log", 0), 0u);
  // Found by fuzzing: nlohmann reports a number too large for a double as
  // out_of_range, not as a parse error.
  EXPECT_EQ(ErrorOf("{\"runs\": [1e99999]}"),
            "in.sarif: not valid JSON (number overflow parsing '1e99999')");
  EXPECT_EQ(ErrorOf("{\"runs\": [{\"results\": 3}]}"),
            "in.sarif: a SARIF run without a results array");
  try {
    ReplayLog::load("/nonexistent/findings.sarif");
    FAIL() << "a missing file was read";
  } catch (const LogError &E) {
    EXPECT_STREQ(E.what(), "/nonexistent/findings.sarif: cannot be read");
  }
}

TEST(ReplayLog, AFailedWriteLeavesNoFile) {
  ReplayLog Log = ReplayLog::load(Json);
  EXPECT_THROW(Log.save("/nonexistent-dir/out.json"), LogError);
}
