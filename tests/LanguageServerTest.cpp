//===--- LanguageServerTest.cpp - torchlint lsp at the protocol level -----===//
//
// The server is driven in-process, message by message, and what it writes is
// read back frame by frame. Neovim drives the real binary in
// tests/editor/ (the neovim_lsp test).
//
//===----------------------------------------------------------------------===//

#include "lsp/LanguageServer.h"
#include "Subprocess.h"
#include "driver/Analyzer.h"
#include "lsp/Positions.h"
#include "lsp/Transport.h"

#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/Signals.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace torchlint;
using namespace torchlint::lsp;
using namespace torchlint::test;
using nlohmann::json;

namespace {

// As torchlint's main() does (InitLLVM): LLVM's signal handlers, with their
// alternate signal stack, installed by the main thread before the server's
// threads start, and crash recovery on. Otherwise the first thread to write
// an output file (a precompiled header) installs them on an alternate stack
// of its own, which AddressSanitizer then fails to unmap when it ends.
const bool SignalHandlersInstalled = [] {
  llvm::sys::PrintStackTraceOnErrorSignal("torchlint_lsp_tests");
  llvm::CrashRecoveryContext::Enable();
  return true;
}();

std::string framed(const std::string &Body) {
  return "Content-Length: " + std::to_string(Body.size()) + "\r\n\r\n" + Body;
}

std::vector<json> messagesIn(const std::string &Output) {
  std::istringstream In(Output);
  std::vector<json> Messages;
  while (true) {
    Frame F = readFrame(In);
    if (F.What != Frame::Message)
      break;
    Messages.push_back(json::parse(F.Body));
  }
  return Messages;
}

json request(int Id, const std::string &Method, json Params) {
  return {{"jsonrpc", "2.0"},
          {"id", Id},
          {"method", Method},
          {"params", std::move(Params)}};
}

json notification(const std::string &Method, json Params) {
  return {
      {"jsonrpc", "2.0"}, {"method", Method}, {"params", std::move(Params)}};
}

/// A server on an in-memory stream, and what it said so far.
class Session {
public:
  explicit Session(ServerOptions Options = {}) {
    Options.ResourceDir = findResourceDir("torchlint");
    Server = std::make_unique<LanguageServer>(Options, Out);
  }

  void send(const json &Message) { Server->handle(Message.dump()); }

  json initialize(json Params = json::object()) {
    if (!Params.contains("capabilities"))
      Params["capabilities"] = json::object();
    send(request(1, "initialize", Params));
    send(notification("initialized", json::object()));
    return answerTo(1);
  }

  void open(const std::string &Path, const std::string &Text, int Version = 1) {
    send(notification("textDocument/didOpen", {{"textDocument",
                                                {{"uri", uriFromPath(Path)},
                                                 {"languageId", "cpp"},
                                                 {"version", Version},
                                                 {"text", Text}}}}));
  }

  std::vector<json> said() { return messagesIn(Out.str()); }

  json answerTo(int Id) {
    for (const json &M : said())
      if (M.contains("id") && M.at("id") == Id && !M.contains("method"))
        return M;
    return nullptr;
  }

  std::vector<json> notifications(const std::string &Method) {
    std::vector<json> Found;
    for (const json &M : said())
      if (M.value("method", "") == Method)
        Found.push_back(M.at("params"));
    return Found;
  }

  std::string logText() {
    std::string Text;
    for (const json &P : notifications("window/logMessage"))
      Text += P.at("message").get<std::string>() + "\n";
    return Text;
  }

  std::unique_ptr<LanguageServer> Server;
  std::ostringstream Out;
};

std::string writeTemporary(const std::string &Dir, const std::string &Name,
                           const std::string &Text) {
  std::string Path = Dir + "/" + Name;
  std::filesystem::create_directories(
      std::filesystem::path(Path).parent_path());
  writeFile(Path, Text);
  return Path;
}

} // namespace

TEST(LspFraming, ReadsMessagesWithCrlfOrLfHeadersInAnyCase) {
  std::istringstream In(framed("{}") + "content-length: 2\n\n[]" +
                        "Content-Type: application/vscode-jsonrpc; "
                        "charset=utf-8\r\nContent-Length:  4 \r\n\r\nnull");
  EXPECT_EQ(readFrame(In).Body, "{}");
  EXPECT_EQ(readFrame(In).Body, "[]");
  Frame Third = readFrame(In);
  EXPECT_EQ(Third.What, Frame::Message);
  EXPECT_EQ(Third.Body, "null");
  EXPECT_EQ(readFrame(In).What, Frame::End);
}

TEST(LspFraming, AMalformedHeaderIsReportedAndReadingGoesOn) {
  std::istringstream In("Content-Type: text/plain\r\n\r\n" +
                        std::string("Content-Length: 12x\r\n\r\n") +
                        "Garbage line\r\nContent-Length: 2\r\n\r\n{}" +
                        framed("[1]"));
  Frame Missing = readFrame(In);
  EXPECT_EQ(Missing.What, Frame::Malformed);
  EXPECT_NE(Missing.Problem.find("no Content-Length"), std::string::npos);
  Frame Invalid = readFrame(In);
  EXPECT_EQ(Invalid.What, Frame::Malformed);
  EXPECT_NE(Invalid.Problem.find("invalid Content-Length '12x'"),
            std::string::npos);
  Frame NoColon = readFrame(In);
  EXPECT_EQ(NoColon.What, Frame::Malformed); // its body was consumed
  Frame Next = readFrame(In);
  EXPECT_EQ(Next.What, Frame::Message);
  EXPECT_EQ(Next.Body, "[1]");
}

TEST(LspFraming, TheFrameAfterABodyOfUnknownLengthIsStillRead) {
  // No Content-Length: the body stays in the stream, and the next frame's
  // header follows it on the same line.
  std::istringstream In("Content-Type: x\r\n\r\n{\"id\": 1}" + framed("[2]") +
                        framed("[3]"));
  EXPECT_EQ(readFrame(In).What, Frame::Malformed);
  EXPECT_EQ(readFrame(In).Body, "[2]");
  EXPECT_EQ(readFrame(In).Body, "[3]");
}

TEST(LspFraming, ATruncatedOrHugeBodyEndsOrIsSkipped) {
  std::istringstream Short("Content-Length: 10\r\n\r\n{}");
  EXPECT_EQ(readFrame(Short).What, Frame::End);
  std::istringstream Huge("Content-Length: 999999999999\r\n\r\n{}");
  EXPECT_EQ(readFrame(Huge).What, Frame::End);
  std::istringstream Overflow("Content-Length: 9999999999999999999\r\n\r\n");
  EXPECT_EQ(readFrame(Overflow).What, Frame::Malformed);
}

TEST(LspPositions, CountsCodeUnitsOfTheNegotiatedEncoding) {
  // 'é' is 2 bytes, one UTF-16 unit; U+1F600 is 4 bytes, two UTF-16 units.
  std::string Text = "a\xC3\xA9\xF0\x9F\x98\x80z";
  EXPECT_EQ(codeUnits(Text, PositionEncoding::Utf8), 8u);
  EXPECT_EQ(codeUnits(Text, PositionEncoding::Utf16), 5u);
  EXPECT_EQ(codeUnits(Text, PositionEncoding::Utf32), 4u);
  // A stray continuation byte and a cut sequence count one unit per byte.
  EXPECT_EQ(codeUnits("\x80x\xE2\x82", PositionEncoding::Utf16), 4u);

  TextPositions Positions("int x;\n" + Text + "\n", PositionEncoding::Utf16);
  EXPECT_EQ(Positions.at(7 + 7),
            (json{{"line", 1}, {"character", 4}})); // before 'z'
  EXPECT_EQ(Positions.at(1000), (json{{"line", 2}, {"character", 0}}));
}

TEST(LspPositions, FileUrisRoundTrip) {
  std::string Path = "/tmp/a dir/caf\xC3\xA9+#%.cpp";
  std::string Uri = uriFromPath(Path);
  EXPECT_EQ(Uri, "file:///tmp/a%20dir/caf%C3%A9%2B%23%25.cpp");
  EXPECT_EQ(pathFromUri(Uri), Path);
  EXPECT_EQ(pathFromUri("file://localhost/x.cpp"), "/x.cpp");
  EXPECT_EQ(pathFromUri("untitled:Untitled-1"), std::nullopt);
  EXPECT_EQ(pathFromUri("file:///bad%2"), std::nullopt);
  EXPECT_EQ(pathFromUri("file:///nul%00"), std::nullopt);
}

TEST(LanguageServer, NegotiatesThePositionEncoding) {
  Session Plain;
  EXPECT_EQ(Plain.initialize()["result"]["capabilities"]["positionEncoding"],
            "utf-16");
  Session Offering;
  json Result = Offering.initialize(
      {{"capabilities",
        {{"general", {{"positionEncodings", {"utf-32", "utf-8"}}}}}}});
  EXPECT_EQ(Result["result"]["capabilities"]["positionEncoding"], "utf-8");
  Session Clangd; // clangd's extension, as older Neovim and Emacs send it
  Result =
      Clangd.initialize({{"capabilities", {{"offsetEncoding", {"utf-32"}}}}});
  EXPECT_EQ(Result["result"]["offsetEncoding"], "utf-32");
}

TEST(LanguageServer, AnswersRequestsBeforeInitializeWithAnError) {
  Session S;
  S.send(request(7, "textDocument/codeAction", json::object()));
  EXPECT_EQ(S.answerTo(7)["error"]["code"], -32002);
  EXPECT_EQ(S.initialize()["result"]["serverInfo"]["name"], "torchlint");
  S.send(request(2, "initialize", {{"capabilities", json::object()}}));
  EXPECT_EQ(S.answerTo(2)["error"]["code"], -32600);
}

TEST(LanguageServer, BadMessagesGetTheProtocolsErrorAndServingGoesOn) {
  Session S;
  S.initialize();
  S.Server->handle("{not json");
  S.Server->handle("[1, 2]");
  S.Server->handleMalformed("no Content-Length header");
  S.send(request(3, "textDocument/hover", json::object()));
  S.send(notification("workspace/didChangeConfiguration", json::object()));
  S.send(request(4, "textDocument/codeAction", {{"textDocument", 5}}));
  S.send(notification("textDocument/didOpen", {{"nothing", true}}));
  S.send(request(5, "shutdown", nullptr));
  std::vector<json> Said = S.said();
  std::vector<int> NullIdErrors;
  for (const json &M : Said)
    if (M.contains("error") && M.at("id").is_null())
      NullIdErrors.push_back(M["error"]["code"].get<int>());
  EXPECT_EQ(NullIdErrors, (std::vector<int>{-32700, -32600, -32700}));
  EXPECT_EQ(S.answerTo(3)["error"]["code"], -32601);
  EXPECT_EQ(S.answerTo(4)["error"]["code"], -32602);
  EXPECT_NE(S.logText().find("ignored textDocument/didOpen: invalid params"),
            std::string::npos);
  EXPECT_TRUE(S.answerTo(5).contains("result"));
  S.send(request(6, "textDocument/codeAction", json::object()));
  EXPECT_EQ(S.answerTo(6)["error"]["code"], -32600); // after shutdown
}

TEST(LanguageServer, ExitStatusSaysWhetherShutdownCameFirst) {
  std::ostringstream Out;
  {
    LanguageServer Server({}, Out);
    std::istringstream In(
        framed(request(1, "initialize", {{"capabilities", json::object()}})
                   .dump()) +
        "Content-Length: nope\r\n\r\n" +
        framed(request(2, "shutdown", nullptr).dump()) +
        framed(notification("exit", nullptr).dump()));
    EXPECT_EQ(Server.run(In), 0);
  }
  std::vector<json> Said = messagesIn(Out.str());
  ASSERT_EQ(Said.size(), 3u);
  EXPECT_EQ(Said[1]["error"]["code"], -32700);
  std::ostringstream Out2;
  LanguageServer Server({}, Out2);
  std::istringstream In(framed(notification("exit", nullptr).dump()));
  EXPECT_EQ(Server.run(In), 1);
}

TEST(LanguageServer, AFileInNoDatabaseIsNotAnalyzed) {
  std::string Dir = temporaryDirectory();
  std::string File = writeTemporary(Dir, "alone/main.cpp", "int main() {}\n");
  Session S;
  S.initialize({{"rootUri", uriFromPath(Dir)}});
  S.open(File, "int main() {}\n");
  S.Server->waitIdle();
  EXPECT_NE(S.logText().find(File + ": no compile_commands.json above it"),
            std::string::npos)
      << S.logText();
  EXPECT_TRUE(S.notifications("textDocument/publishDiagnostics").empty());
}

TEST(LanguageServer, AFileOutsideTheWorkspaceIsNotAnalyzed) {
  std::string Workspace = temporaryDirectory();
  std::string Elsewhere = temporaryDirectory();
  std::string File = writeTemporary(Elsewhere, "main.cpp", "int main() {}\n");
  writeTemporary(Elsewhere, "compile_commands.json",
                 json::array({{{"directory", Elsewhere},
                               {"file", File},
                               {"arguments", {"c++", "-c", File}}}})
                     .dump());
  Session S;
  S.initialize({{"workspaceFolders",
                 {{{"uri", uriFromPath(Workspace)}, {"name", "w"}}}}});
  S.open(File, "int main() {}\n");
  S.Server->waitIdle();
  EXPECT_NE(S.logText().find(File + ": outside the workspace"),
            std::string::npos)
      << S.logText();
  EXPECT_TRUE(S.notifications("textDocument/publishDiagnostics").empty());
}

TEST(LanguageServer, AnAnalyzedFileWithNothingFoundGetsAnEmptyList) {
  std::string Dir = temporaryDirectory();
  std::string File = writeTemporary(Dir, "src/main.cpp", "int main() {}\n");
  writeTemporary(Dir, "build/compile_commands.json",
                 json::array({{{"directory", Dir},
                               {"file", File},
                               {"arguments", {"c++", "-c", File}}}})
                     .dump());
  Session S;
  S.initialize({{"rootUri", uriFromPath(Dir)}});
  S.open(File, "int main() {}\n");
  S.Server->waitIdle();
  std::vector<json> Published =
      S.notifications("textDocument/publishDiagnostics");
  ASSERT_EQ(Published.size(), 1u) << S.logText();
  EXPECT_EQ(Published[0]["uri"], uriFromPath(File));
  EXPECT_TRUE(Published[0]["diagnostics"].empty());
  EXPECT_TRUE(std::filesystem::exists(Dir + "/build/.torchlint-cache"));
}

TEST(LanguageServer, ABrokenDatabaseIsToldOnceAndNamed) {
  std::string Dir = temporaryDirectory();
  std::string File = writeTemporary(Dir, "main.cpp", "int main() {}\n");
  writeTemporary(Dir, "compile_commands.json", "[{\"file\": ");
  Session S;
  S.initialize();
  S.open(File, "int main() {}\n");
  S.send(notification("textDocument/didSave",
                      {{"textDocument", {{"uri", uriFromPath(File)}}}}));
  S.Server->waitIdle();
  std::vector<json> Shown = S.notifications("window/showMessage");
  ASSERT_EQ(Shown.size(), 1u);
  EXPECT_NE(Shown[0]["message"].get<std::string>().find(
                Dir + "/compile_commands.json"),
            std::string::npos)
      << Shown[0];
}

namespace {

/// A copy of a test-inputs program that also includes a header of its own,
/// with its entry of the test-inputs database pointed at the copy.
struct CopiedProgram {
  std::string Dir, Main, Header;
};

CopiedProgram copyProgram(const std::string &Name) {
  CopiedProgram P;
  P.Dir = temporaryDirectory();
  std::string Original = testInputsDir() + "/" + Name;
  std::string Text = readFile(Original);
  size_t AfterTorch = Text.find('\n', Text.find("#include <torch/torch.h>"));
  Text.insert(AfterTorch + 1, "#include \"settings.h\"\n");
  P.Main = writeTemporary(P.Dir, Name, Text);
  P.Header = writeTemporary(P.Dir, "settings.h", "constexpr int Seed = 1;\n");
  json Database = json::parse(readFile(testInputsDatabase()));
  for (json Entry : Database)
    if (Entry.at("file") == Original) {
      std::string Command = Entry.at("command").get<std::string>();
      Command.replace(Command.find(Original), Original.size(), P.Main);
      Entry["command"] = Command;
      Entry["file"] = P.Main;
      Entry["directory"] = P.Dir;
      writeTemporary(P.Dir, "compile_commands.json",
                     json::array({Entry}).dump());
    }
  return P;
}

} // namespace

TEST(LanguageServer, PublishesFindingsAndOffersTheirFixItsOnTheAnalyzedText) {
  CopiedProgram P = copyProgram("dataloader_cpu_only.cpp");
  std::string Text = readFile(P.Main);
  Session S;
  S.initialize({{"rootUri", uriFromPath(P.Dir)}});
  S.open(P.Main, Text);
  S.Server->waitIdle();
  std::vector<json> Published =
      S.notifications("textDocument/publishDiagnostics");
  ASSERT_EQ(Published.size(), 1u) << S.logText();
  ASSERT_EQ(Published[0]["diagnostics"].size(), 1u);
  json D = Published[0]["diagnostics"][0];
  EXPECT_EQ(D["code"], "torch-dataloader-no-workers");
  EXPECT_EQ(D["severity"], 2);
  EXPECT_EQ(D["source"], "torchlint");
  EXPECT_NE(D["codeDescription"]["href"].get<std::string>().find(
                "docs/rules/torch-dataloader-no-workers.md"),
            std::string::npos);
  EXPECT_FALSE(D["relatedInformation"].empty());

  json Ask = {{"textDocument", {{"uri", uriFromPath(P.Main)}}},
              {"range", D["range"]},
              {"context", {{"diagnostics", {D}}}}};
  S.send(request(10, "textDocument/codeAction", Ask));
  json Actions = S.answerTo(10)["result"];
  ASSERT_EQ(Actions.size(), 1u);
  EXPECT_EQ(Actions[0]["kind"], "quickfix");
  json Edits = Actions[0]["edit"]["changes"][uriFromPath(P.Main)];
  std::string Inserted;
  for (const json &Edit : Edits)
    Inserted += Edit["newText"].get<std::string>();
  EXPECT_NE(Inserted.find("workers("), std::string::npos) << Edits;

  // Edited but not saved: the fix-it's offsets are of the old text.
  S.send(notification(
      "textDocument/didChange",
      {{"textDocument", {{"uri", uriFromPath(P.Main)}, {"version", 2}}},
       {"contentChanges", {{{"text", "// edited\n" + Text}}}}}));
  S.send(request(11, "textDocument/codeAction", Ask));
  EXPECT_TRUE(S.answerTo(11)["result"].empty());

  // Saving a header the unit includes analyzes the unit again.
  writeFile(P.Header, "constexpr int Seed = 2;\n");
  S.send(notification("textDocument/didSave",
                      {{"textDocument", {{"uri", uriFromPath(P.Header)}}}}));
  S.Server->waitIdle();
  EXPECT_EQ(S.notifications("textDocument/publishDiagnostics").size(), 2u)
      << S.logText();
}

namespace {

/// A multi-unit program of test-inputs/ in a folder of its own, with its
/// entries of the test-inputs database: a cache of its own.
std::string copyProject(const std::string &Name) {
  std::string Dir = temporaryDirectory();
  std::string Original = testInputsDir() + "/" + Name;
  std::filesystem::copy(Original, Dir + "/" + Name,
                        std::filesystem::copy_options::recursive);
  json Database = json::array();
  for (json Entry : json::parse(readFile(testInputsDatabase()))) {
    std::string File = Entry.at("file").get<std::string>();
    if (File.rfind(Original + "/", 0) != 0)
      continue;
    std::string Copy = Dir + "/" + Name + File.substr(Original.size());
    std::string Command = Entry.at("command").get<std::string>();
    Command.replace(Command.find(File), File.size(), Copy);
    Entry["command"] = Command;
    Entry["file"] = Copy;
    Entry["directory"] = Dir;
    Database.push_back(Entry);
  }
  writeTemporary(Dir, "compile_commands.json", Database.dump());
  return Dir + "/" + Name;
}

std::vector<std::string> lastCodesFor(Session &S, const std::string &Path) {
  std::vector<std::string> Codes;
  for (const json &P : S.notifications("textDocument/publishDiagnostics"))
    if (P["uri"] == uriFromPath(Path)) {
      Codes.clear();
      for (const json &D : P["diagnostics"])
        Codes.push_back(D["code"]);
    }
  return Codes;
}

} // namespace

// What other units tell a unit (the summary pass) comes from their results
// in the cache, once every unit has one. Until then a unit is analyzed on its
// own: evaluate() has no known caller, so its device may be a GPU; main
// cannot know where the loss of losses.cpp lives. Once losses.cpp is
// analyzed too, the open units hear of each other and are analyzed again,
// once each: evaluate() is called with the CPU only, and main's loss is on
// its GPU. The database's entry of a source that no longer exists and its
// CUDA entry, which the CLI's pass leaves out, keep nothing from being known.
TEST(LanguageServer, UnitsHearWhatTheOthersTellOnceEachHasAResultInTheCache) {
  std::string Dir = copyProject("loss_in_another_unit");
  std::string DatabasePath = std::filesystem::path(Dir).parent_path().string() +
                             "/compile_commands.json";
  json Database = json::parse(readFile(DatabasePath));
  for (const char *Name : {"removed.cpp", "kernels.cu"}) {
    json Entry = Database[0];
    std::string Command = Entry["command"];
    std::string File = Entry["file"];
    Command.replace(Command.find(File), File.size(), Dir + "/" + Name);
    Entry["command"] = Command;
    Entry["file"] = Dir + "/" + Name;
    Database.push_back(Entry);
  }
  writeFile(DatabasePath, Database.dump());
  Session S;
  auto Published = [&](const std::string &File) {
    size_t Count = 0;
    for (const json &P : S.notifications("textDocument/publishDiagnostics"))
      Count += P["uri"] == uriFromPath(Dir + "/" + File);
    return Count;
  };
  S.initialize({{"rootUri", uriFromPath(Dir)}});
  S.open(Dir + "/evaluate.cpp", readFile(Dir + "/evaluate.cpp"));
  S.Server->waitIdle();
  EXPECT_EQ(lastCodesFor(S, Dir + "/evaluate.cpp"),
            (std::vector<std::string>{"torch-cpu-tensor-then-moved",
                                      "torch-sync-in-loop"}))
      << S.logText();
  EXPECT_NE(S.logText().find("2 of the 3 other units ("), std::string::npos)
      << S.logText();
  EXPECT_NE(S.logText().find("among them) have no up-to-date result in the "
                             "cache"),
            std::string::npos)
      << S.logText();
  S.open(Dir + "/main.cpp", readFile(Dir + "/main.cpp"));
  S.Server->waitIdle();
  EXPECT_EQ(lastCodesFor(S, Dir + "/main.cpp"),
            std::vector<std::string>{"torch-missing-mixed-precision"});

  S.open(Dir + "/losses.cpp", readFile(Dir + "/losses.cpp"));
  S.Server->waitIdle();
  EXPECT_TRUE(lastCodesFor(S, Dir + "/losses.cpp").empty());
  EXPECT_TRUE(lastCodesFor(S, Dir + "/evaluate.cpp").empty()) << S.logText();
  EXPECT_EQ(lastCodesFor(S, Dir + "/main.cpp"),
            (std::vector<std::string>{"torch-missing-mixed-precision",
                                      "torch-sync-in-loop"}));
  EXPECT_EQ(Published("evaluate.cpp"), 2u);
  EXPECT_EQ(Published("main.cpp"), 2u);

  // A save of losses.cpp that changes nothing it tells: its units are not
  // analyzed again.
  S.send(notification(
      "textDocument/didSave",
      {{"textDocument", {{"uri", uriFromPath(Dir + "/losses.cpp")}}}}));
  S.Server->waitIdle();
  EXPECT_EQ(Published("evaluate.cpp"), 2u);
  EXPECT_EQ(Published("main.cpp"), 2u);
  EXPECT_EQ(Published("losses.cpp"), 2u);
}

namespace {

/// A project of files that need no libtorch: quick to analyze.
std::string writeProject(const std::string &Dir,
                         const std::vector<std::string> &Mains) {
  json Database = json::array();
  writeTemporary(Dir, "h.h", "inline int helper() { return 1; }\n");
  for (const std::string &Main : Mains) {
    std::string File = writeTemporary(
        Dir, Main, "#include \"h.h\"\nint main() { return helper(); }\n");
    Database.push_back({{"directory", Dir},
                        {"file", File},
                        {"arguments", {"c++", "-c", File}}});
  }
  return writeTemporary(Dir, "compile_commands.json", Database.dump());
}

size_t publishedFor(Session &S, const std::string &Uri) {
  size_t Count = 0;
  for (const json &P : S.notifications("textDocument/publishDiagnostics"))
    Count += P["uri"] == Uri;
  return Count;
}

} // namespace

TEST(LanguageServer, AClosedFileIsClearedAndNotPublishedAgain) {
  std::string Dir = temporaryDirectory();
  writeProject(Dir, {"a.cpp", "b.cpp"});
  Session S;
  S.initialize({{"rootUri", uriFromPath(Dir)}});
  S.open(Dir + "/a.cpp", readFile(Dir + "/a.cpp"));
  S.open(Dir + "/b.cpp", readFile(Dir + "/b.cpp"));
  S.Server->waitIdle();
  size_t BeforeClose = publishedFor(S, uriFromPath(Dir + "/a.cpp"));
  EXPECT_GE(BeforeClose, 1u);
  S.send(
      notification("textDocument/didClose",
                   {{"textDocument", {{"uri", uriFromPath(Dir + "/a.cpp")}}}}));
  S.Server->waitIdle();
  S.send(
      notification("textDocument/didSave",
                   {{"textDocument", {{"uri", uriFromPath(Dir + "/b.cpp")}}}}));
  S.Server->waitIdle();
  // The last list for a.cpp is the empty one its close caused, or none
  // after it if it had none; b.cpp's save does not bring it back.
  std::vector<json> ForA;
  for (const json &P : S.notifications("textDocument/publishDiagnostics"))
    if (P["uri"] == uriFromPath(Dir + "/a.cpp"))
      ForA.push_back(P);
  EXPECT_LE(ForA.size(), BeforeClose + 1);
  EXPECT_TRUE(ForA.back()["diagnostics"].empty());
  EXPECT_EQ(publishedFor(S, uriFromPath(Dir + "/b.cpp")), 2u);
}

TEST(LanguageServer, SavingAHeaderAnalyzesItsUnitsAgainWithoutACache) {
  std::string Dir = temporaryDirectory();
  writeProject(Dir, {"a.cpp"});
  ServerOptions Options;
  Options.NoCache = true;
  Session S(Options);
  S.initialize({{"rootUri", uriFromPath(Dir)}});
  S.open(Dir + "/a.cpp", readFile(Dir + "/a.cpp"));
  S.Server->waitIdle();
  S.send(
      notification("textDocument/didSave",
                   {{"textDocument", {{"uri", uriFromPath(Dir + "/h.h")}}}}));
  S.Server->waitIdle();
  EXPECT_EQ(publishedFor(S, uriFromPath(Dir + "/a.cpp")), 2u) << S.logText();
  EXPECT_FALSE(std::filesystem::exists(Dir + "/.torchlint-cache"));
}

TEST(LanguageServer, AFileOpenedThroughASymbolicLinkIsPublishedUnderItsUri) {
  std::string Real = temporaryDirectory();
  writeProject(Real, {"a.cpp"});
  std::string Link = temporaryDirectory() + "/link";
  std::filesystem::create_directory_symlink(Real, Link);
  Session S;
  S.initialize({{"rootUri", uriFromPath(Link)}});
  S.open(Link + "/a.cpp", readFile(Link + "/a.cpp"));
  S.Server->waitIdle();
  EXPECT_EQ(publishedFor(S, uriFromPath(Link + "/a.cpp")), 1u) << S.logText();
  EXPECT_EQ(publishedFor(S, uriFromPath(Real + "/a.cpp")), 0u);
}

TEST(LanguageServerCommand, AnUnknownOptionIsOneClearError) {
  RunResult R = run(torchlintBinary(), {"lsp", "--compile-commands=build"});
  EXPECT_EQ(R.ExitCode, 2);
  EXPECT_EQ(R.Stdout, ""); // stdout belongs to the protocol
  EXPECT_NE(R.Stderr.find("unknown option '--compile-commands=build'"),
            std::string::npos)
      << R.Stderr;
  RunResult Help = run(torchlintBinary(), {"lsp", "--help"});
  EXPECT_EQ(Help.ExitCode, 0);
  EXPECT_NE(Help.Stdout.find("--compile-commands-dir=DIR"), std::string::npos);
}

TEST(LanguageServer, InitializationOptionsChooseTheRulesAndTheirOptions) {
  std::string Dir = temporaryDirectory();
  writeProject(Dir, {"a.cpp"});
  Session NoRules;
  NoRules.initialize({{"rootUri", uriFromPath(Dir)},
                      {"initializationOptions", {{"checks", "-*"}}}});
  NoRules.open(Dir + "/a.cpp", readFile(Dir + "/a.cpp"));
  NoRules.Server->waitIdle();
  std::vector<json> Shown = NoRules.notifications("window/showMessage");
  ASSERT_EQ(Shown.size(), 1u);
  EXPECT_NE(Shown[0]["message"].get<std::string>().find(
                "no rule is enabled by checks '-*'"),
            std::string::npos);

  Session Missing;
  Missing.initialize(
      {{"rootUri", uriFromPath(Dir)},
       {"initializationOptions", {{"configFile", Dir + "/none.yaml"}}}});
  Missing.open(Dir + "/a.cpp", readFile(Dir + "/a.cpp"));
  Missing.Server->waitIdle();
  Shown = Missing.notifications("window/showMessage");
  ASSERT_EQ(Shown.size(), 1u);
  EXPECT_NE(Shown[0]["message"].get<std::string>().find(Dir + "/none.yaml"),
            std::string::npos)
      << Shown[0];
}
