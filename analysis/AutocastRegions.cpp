#include "analysis/AutocastRegions.h"

#include "analysis/EnclosingBlocks.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

using namespace clang;

namespace torchlint::autocast {

namespace {
/// The last switch for Device among Items, which all run: a plain `{ ... }`
/// block among them runs too, so its switches count.
void lastSwitchIn(llvm::iterator_range<CompoundStmt::const_body_iterator> Items,
                  const Stmt *Stop, api::DeviceKind Device, ASTContext &Ctx,
                  std::optional<AutocastCall> &Latest) {
  for (const Stmt *Item : Items) {
    if (Item == Stop)
      break;
    if (const auto *Block = dyn_cast<CompoundStmt>(Item)) {
      lastSwitchIn(Block->body(), nullptr, Device, Ctx, Latest);
      continue;
    }
    const auto *E = dyn_cast<Expr>(Item);
    const auto *Call =
        E ? dyn_cast<CallExpr>(E->IgnoreParenImpCasts()) : nullptr;
    if (std::optional<AutocastCall> Read = classify(Call, Ctx);
        Read && Read->isSwitch() && Read->Device == Device)
      Latest = Read;
  }
}
} // namespace

std::optional<AutocastCall> switchBefore(const Stmt *S, api::DeviceKind Device,
                                         ASTContext &Ctx) {
  // The latest switch before S in a block wins over anything in the blocks
  // around.
  std::optional<AutocastCall> Latest;
  forEachEnclosingBlock(
      S, Ctx, [&](const CompoundStmt *Block, const Stmt *Child) {
        lastSwitchIn(Block->body(), Child, Device, Ctx, Latest);
        return Latest.has_value();
      });
  return Latest;
}

} // namespace torchlint::autocast
