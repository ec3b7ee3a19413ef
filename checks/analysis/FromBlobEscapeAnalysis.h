//===- FromBlobEscapeAnalysis.h - from_blob tensors that escape -*- C++ -*-===//
//
// Finds, in one function, the tensors made by `from_blob` that leave the
// reach of the buffer they wrap (returned, stored, handed to a worker), and
// the buffers written again while such a tensor is still used.
// libtorch-from-blob-escape words and fixes what it finds.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHALIAS_ANALYSIS_FROMBLOBESCAPEANALYSIS_H
#define TORCHALIAS_ANALYSIS_FROMBLOBESCAPEANALYSIS_H

#include "AliasAnalysis.h"
#include "WorkerEntryPoints.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <string>
#include <vector>

namespace clang::tidy::libtorch {

/// A route by which a from_blob tensor leaves its buffer's reach.
enum class EscapeRoute {
  Returned,       ///< returned from the function that owns the buffer
  DatasetGet,     ///< returned from a dataset's get()
  Stored,         ///< stored in a container that outlives the buffer
  StoredInMember, ///< assigned to a member
  Worker,         ///< handed to a worker entry point
  StoredEachIteration, ///< stored on every iteration of a loop that refills
                       ///< the buffer
};

/// One from_blob call and the buffer it wraps.
struct BlobSite {
  const CallExpr *FromBlob = nullptr;
  const ValueDecl *Buffer = nullptr;
  /// The innermost loop around the call, if any.
  const Stmt *Loop = nullptr;
};

/// A from_blob tensor leaving its buffer's reach.
struct BlobEscape {
  EscapeRoute Route;
  SourceLocation Where; ///< the escaping tensor expression or capture
  std::string Tensor;   ///< its name, empty when it has none
  const BlobSite *Site;
  std::string Into; ///< the function, container, member or entry point
};

/// A buffer written while a tensor over it is live: the write, the site,
/// the tensor's root, and the first use after the write.
struct BlobRewrite {
  const Stmt *Write;
  const BlobSite *Site;
  const ValueDecl *Root;
  const DeclRefExpr *LaterUse;
};

/// Whether S calls `from_blob`: a cheap test before any analysis.
bool mentionsFromBlob(const Stmt *S);

/// A buffer whose storage dies with the function's scope: a local array or
/// object, not a pointer, reference or static.
bool isScopedBuffer(const ValueDecl *Decl);

/// Walks a function body in source order to find from_blob tensors that
/// escape their buffer.
///
/// Problem: `from_blob` gives a tensor that points into memory it neither owns
/// nor keeps alive. The tensor is only safe while its buffer lives and holds
/// the contents the tensor was made for.
///
/// Simplification: values are tracked in source order rather than along the
/// CFG (a variable that holds a from_blob tensor on one branch is treated as
/// holding it), and a buffer is a variable: a local array or object, a pointer
/// or a member. A write to the buffer is an assignment into it, a call of one
/// of its rewriting methods (`assign`, `resize`, ...), or passing it as a
/// pointer to non-const or a non-const reference.
///
/// Limitation: a from_blob tensor returned by a helper function is not
/// followed into its callers, and writes to the buffer through another
/// pointer to it are not seen.
class FromBlobEscapeAnalysis {
public:
  FromBlobEscapeAnalysis(const FunctionAliasAnalysis &Analysis,
                         AliasAnalysisContext &Context,
                         const WorkerEntryPoints &Workers)
      : Analysis(Analysis), Context(Context), Table(Context.table()),
        Workers(Workers) {}

  void run(const FunctionDecl *Function);

  /// The escapes in the order the walk meets them, then the stores made on
  /// every iteration of a loop that refills the buffer. One tensor may
  /// escape by several routes.
  const std::vector<BlobEscape> &escapes() const { return Escapes; }
  /// At most one rewrite per from_blob tensor.
  const std::vector<BlobRewrite> &rewrites() const { return Rewrites; }

private:
  struct BufferWrite {
    const ValueDecl *Buffer;
    const Stmt *Where;
  };
  struct TensorUse {
    const ValueDecl *Root;
    const DeclRefExpr *Ref;
  };

  void visit(const Stmt *S);
  void visitChildren(const Stmt *S) {
    for (const Stmt *Child : S->children())
      visit(Child);
  }
  void visitExpression(const Stmt *S);
  void visitReturn(const ReturnStmt *Return);
  void bind(const VarDecl *Var, const Expr *Init);
  const BlobSite *blobOf(const Expr *E) const;
  const CallExpr *findFromBlob(const Expr *E) const;
  void noteEscape(EscapeRoute Route, const Expr *E, std::string Into,
                  bool NeedsScopedBuffer);
  bool outlives(const Expr *Container, const ValueDecl *Buffer) const;
  void checkSpawn(const Expr *E);
  void checkBufferWrite(const Stmt *S);
  void checkStores(const CXXMemberCallExpr *Call);
  void findRewrites();

  const FunctionAliasAnalysis &Analysis;
  AliasAnalysisContext &Context;
  const OperatorTable &Table;
  const WorkerEntryPoints &Workers;
  const FunctionDecl *Function = nullptr;
  bool DatasetGet = false;
  AliasEnvironment Environment;
  std::vector<std::unique_ptr<BlobSite>> Sites;
  llvm::DenseMap<const ValueDecl *, const BlobSite *> SiteOfRoot;
  llvm::DenseMap<const CallExpr *, const BlobSite *> SiteOfCall;
  /// The scopes (compound statements and loops) around each local variable.
  llvm::DenseMap<const VarDecl *, std::vector<const Stmt *>> ScopesOf;
  std::vector<const Stmt *> Scopes;
  std::vector<const Stmt *> Loops;
  unsigned LambdaDepth = 0;
  std::vector<BufferWrite> Writes;
  std::vector<TensorUse> Uses;
  /// Stores made inside a loop, checked once the loop's writes are known.
  std::vector<BlobEscape> LoopStores;
  std::vector<BlobEscape> Escapes;
  std::vector<BlobRewrite> Rewrites;
};

} // namespace clang::tidy::libtorch

#endif
