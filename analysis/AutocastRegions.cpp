#include "analysis/AutocastRegions.h"

#include "analysis/EnclosingBlocks.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"

using namespace clang;

namespace torchlint::autocast {

std::optional<AutocastCall> switchBefore(const Stmt *S, api::DeviceKind Device,
                                         ASTContext &Ctx) {
  // The latest switch before S in a block wins over anything in the blocks
  // around.
  std::optional<AutocastCall> Latest;
  forEachEnclosingBlock(
      S, Ctx, [&](const CompoundStmt *Block, const Stmt *Child) {
        for (const Stmt *Item : Block->body()) {
          if (Item == Child)
            break;
          const auto *E = dyn_cast<Expr>(Item);
          const auto *Call =
              E ? dyn_cast<CallExpr>(E->IgnoreParenImpCasts()) : nullptr;
          if (std::optional<AutocastCall> Read = classify(Call, Ctx);
              Read && Read->isSwitch() && Read->Device == Device)
            Latest = Read;
        }
        return Latest.has_value();
      });
  return Latest;
}

} // namespace torchlint::autocast
