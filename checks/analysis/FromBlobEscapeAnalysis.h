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
#include "llvm/ADT/DenseSet.h"

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

/// One from_blob call and the buffer it wraps: a from_blob call of the
/// function, or a call of a method that returns a from_blob tensor over a
/// member of its object (Note [Blob producers]).
struct BlobSite {
  const CallExpr *FromBlob = nullptr;
  const ValueDecl *Buffer = nullptr;
  /// The innermost loop around the call (the producer call), if any.
  const Stmt *Loop = nullptr;
  /// For a method's tensor: the call of the method here, the object it is
  /// called on (null for `this`), and whether the method refills the member
  /// itself, with the write inside it.
  const CXXMemberCallExpr *Producer = nullptr;
  const Decl *Owner = nullptr;
  const Stmt *ProducerRefill = nullptr;

  /// Where the tensor is made in the function being analysed.
  const Expr *anchor() const {
    return Producer ? static_cast<const Expr *>(Producer) : FromBlob;
  }
};

/// What a method of the translation unit does to the buffers of its own
/// object (Note [Blob producers]).
struct BlobProducerSummary {
  /// The member whose memory the returned tensor wraps without a copy, and
  /// the from_blob call that wraps it.
  const FieldDecl *Returns = nullptr;
  const CallExpr *FromBlob = nullptr;
  /// The members the method writes, each with one write inside it (or inside
  /// a method it calls on its object).
  llvm::SmallVector<std::pair<const FieldDecl *, const Stmt *>, 2> Refills;

  const Stmt *refillOf(const FieldDecl *Field) const {
    for (const auto &[Written, Where] : Refills)
      if (Written == Field)
        return Where;
    return nullptr;
  }
};

class FromBlobEscapeAnalysis;

/// The summaries of one translation unit's methods, computed on demand and
/// memoised; recursion is cut (a method being summarised has no summary).
class BlobProducers {
public:
  BlobProducers(AliasAnalysisContext &Context, const WorkerEntryPoints &Workers)
      : Context(Context), Workers(Workers) {}

  /// The summary of Method, or null when it has no body here, is libtorch's,
  /// or neither wraps nor writes a member.
  const BlobProducerSummary *summary(const CXXMethodDecl *Method);

  /// Whether Body calls a method whose summary returns a from_blob tensor
  /// over a member: a cheap test before any analysis.
  bool callsProducer(const Stmt *Body);

private:
  /// Whether a method of Class returns a tensor and calls from_blob.
  bool classProduces(const CXXRecordDecl *Class);

  AliasAnalysisContext &Context;
  const WorkerEntryPoints &Workers;
  llvm::DenseMap<const CXXRecordDecl *, bool> Producing;
  llvm::DenseMap<const CXXMethodDecl *, std::unique_ptr<BlobProducerSummary>>
      Summaries;
  llvm::DenseSet<const CXXMethodDecl *> InProgress;
};

/// A from_blob tensor leaving its buffer's reach.
struct BlobEscape {
  EscapeRoute Route;
  SourceLocation Where; ///< the escaping tensor expression or capture
  std::string Tensor;   ///< its name, empty when it has none
  const BlobSite *Site;
  std::string Into; ///< the function, container, member or entry point
  /// For a producer's tensor: the refill that follows, and its write inside
  /// the method that refills.
  const Stmt *Refill = nullptr;
  const Stmt *RefillInner = nullptr;
  /// For a store: the container or member, when it names one.
  const ValueDecl *Container = nullptr;
};

/// A buffer written while a tensor over it is live: the write, the site,
/// the tensor's root, and the first use after the write.
struct BlobRewrite {
  const Stmt *Write;
  const BlobSite *Site;
  const ValueDecl *Root;
  const DeclRefExpr *LaterUse;
  /// For a call of a method that refills the buffer: the write inside it.
  const Stmt *Inner = nullptr;
};

/// A tensor member that wraps a buffer member of its own object, and a call
/// in a method of the class that may reallocate the buffer while the tensor
/// still wraps it (Note [Members that wrap a member]).
struct MemberBlobGrowth {
  const FieldDecl *Tensor;
  const BlobSite *Site;
  const Expr *Store;       ///< The assignment of the member.
  const CallExpr *Growth;  ///< The call that may reallocate the buffer.
  const FunctionDecl *GrowingMethod;
  const MemberExpr *Read;  ///< A read of the member where nothing stores it.
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
/// A call of a method that returns a from_blob tensor over a member of its
/// object is a site over that object's member, and a call of a method that
/// writes a member writes that object's buffer (Note [Blob producers]); such
/// a site escapes only when its buffer is refilled after it is kept.
///
/// Limitation: a from_blob tensor returned by a free function is not
/// followed into its callers, a producer's result kept from one loop
/// iteration to the next in a variable is not seen, and writes to the buffer
/// through another pointer to it are not seen.
class FromBlobEscapeAnalysis {
public:
  FromBlobEscapeAnalysis(const FunctionAliasAnalysis &Analysis,
                         AliasAnalysisContext &Context,
                         const WorkerEntryPoints &Workers,
                         BlobProducers &Producers)
      : Analysis(Analysis), Context(Context), Table(Context.table()),
        Workers(Workers), Producers(Producers) {}

  void run(const FunctionDecl *Function);

  /// The escapes in the order the walk meets them, then the stores made on
  /// every iteration of a loop that refills the buffer. One tensor may
  /// escape by several routes.
  const std::vector<BlobEscape> &escapes() const { return Escapes; }
  /// At most one rewrite per from_blob tensor.
  const std::vector<BlobRewrite> &rewrites() const { return Rewrites; }

  /// For the summary of the method analysed: what it returns and writes.
  BlobProducerSummary producerSummary() const;

  /// The members this method stores a from_blob tensor over a member buffer
  /// in, with the calls of the class's methods that may reallocate that
  /// buffer under them (Note [Members that wrap a member]).
  std::vector<MemberBlobGrowth> memberGrowths() const;

private:
  /// A write to Buffer, a member of Owner (null for `this` or a variable);
  /// for a call of a method that writes it, Inner is the write in the method.
  struct BufferWrite {
    const ValueDecl *Buffer;
    const Stmt *Where;
    const Decl *Owner = nullptr;
    const Stmt *Inner = nullptr;
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
  void visitLambdaReturn(const ReturnStmt *Return, const Stmt *Body);
  void bind(const VarDecl *Var, const Expr *Init);
  const BlobSite *blobOf(const Expr *E) const;
  const CallExpr *findFromBlob(const Expr *E) const;
  const BlobSite *findSite(const Expr *E) const;
  void addEscape(BlobEscape Escape, bool Partitioned = false);
  void noteEscape(EscapeRoute Route, const Expr *E, std::string Into,
                  bool NeedsScopedBuffer);
  bool outlives(const Expr *Container, const ValueDecl *Buffer) const;
  void checkSpawn(const Expr *E);
  void checkBufferWrite(const Stmt *S);
  void checkStores(const CXXMemberCallExpr *Call);
  void checkProducer(const CXXMemberCallExpr *Call);
  bool refilledAfter(BlobEscape &Escape) const;
  bool clearedInLoop(const BlobEscape &Store) const;
  bool joinedBetween(SourceLocation From, SourceLocation To) const;
  void findRewrites();

  const FunctionAliasAnalysis &Analysis;
  AliasAnalysisContext &Context;
  const OperatorTable &Table;
  const WorkerEntryPoints &Workers;
  BlobProducers &Producers;
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
  /// The bodies of the lambdas being visited, innermost last.
  llvm::SmallVector<const Stmt *, 2> LambdaBodies;
  std::vector<BufferWrite> Writes;
  std::vector<TensorUse> Uses;
  /// Stores made inside a loop, and escapes of a producer's tensor, checked
  /// once the writes that follow them are known.
  std::vector<BlobEscape> Pending;
  /// Joins of a thread or future, for the escapes to a worker.
  std::vector<const Stmt *> Joins;
  /// `clear()` calls of containers: a container cleared in the loop keeps
  /// nothing across iterations.
  std::vector<std::pair<const ValueDecl *, const Stmt *>> Clears;
  /// The returned from_blob tensors over members of this object.
  std::vector<const BlobSite *> ReturnedMemberBlobs;
  /// Assignments of a from_blob tensor over a member of this object to a
  /// tensor member (Note [Members that wrap a member]).
  struct MemberWrap {
    const FieldDecl *Tensor;
    const BlobSite *Site;
    const Expr *Store;
  };
  std::vector<MemberWrap> MemberWraps;
  std::vector<BlobEscape> Escapes;
  std::vector<BlobRewrite> Rewrites;
};

} // namespace clang::tidy::libtorch

#endif
