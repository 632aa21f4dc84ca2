//===--- TorchApiInternal.h - Helpers of the TorchApi sources ---*- C++ -*-===//
//
// Shared by TorchApi.cpp, ModuleApi.cpp and DeviceLiteralApi.cpp; not part of
// the vocabulary the analyses and rules read.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_MATCHERS_TORCHAPIINTERNAL_H
#define TORCHLINT_MATCHERS_TORCHAPIINTERNAL_H

#include "clang/AST/DeclCXX.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/StringRef.h"

namespace torchlint::api {

/// The record T names, through references and qualifiers; its definition
/// where there is one.
const clang::CXXRecordDecl *recordOf(clang::QualType T);

/// Whether D's qualified name is Name (checking the last part first).
bool hasQualifiedName(const clang::NamedDecl *D, llvm::StringRef Name);

/// Whether T names the record of that qualified name.
bool isRecordNamed(clang::QualType T, llvm::StringRef Name);

} // namespace torchlint::api

#endif // TORCHLINT_MATCHERS_TORCHAPIINTERNAL_H
