; A program for LLVM's own JIT (lli), from this C:
;   int leaf_fn(int x) { usleep(1000); return x + 1; }
;   int middle_fn(int x) { return leaf_fn(x) * 2; }            // called once
;   int hot_fn(int i) { return getpid() % 7 + i; }             // called 5 times
;   int outer_fn(int n) { int acc = 0; for (int i = 0; i < n; i++) acc += hot_fn(i);
;                         return acc + middle_fn(n); }
;   int main(void) { return outer_fn(5) > 0 ? 0 : 1; }
; (noinline each, frame pointers kept). MCJIT writes its jitdump before it
; makes the code executable (test/llvm/mcjit-code-made-executable-later.test).
source_filename = "mcjit.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @leaf_fn(i32 noundef %0) local_unnamed_addr #0 {
  %2 = call i32 @usleep(i32 noundef 1000) #4
  %3 = add nsw i32 %0, 1
  ret i32 %3
}

declare i32 @usleep(i32 noundef) local_unnamed_addr #1

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @middle_fn(i32 noundef %0) local_unnamed_addr #0 {
  %2 = call i32 @leaf_fn(i32 noundef %0)
  %3 = shl nsw i32 %2, 1
  ret i32 %3
}

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @hot_fn(i32 noundef %0) local_unnamed_addr #0 {
  %2 = call i32 @getpid() #4
  %3 = srem i32 %2, 7
  %4 = add nsw i32 %3, %0
  ret i32 %4
}

; Function Attrs: nounwind
declare i32 @getpid() local_unnamed_addr #2

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @outer_fn(i32 noundef %0) local_unnamed_addr #0 {
  %2 = icmp sgt i32 %0, 0
  br i1 %2, label %7, label %3

3:                                                ; preds = %7, %1
  %4 = phi i32 [ 0, %1 ], [ %11, %7 ]
  %5 = call i32 @middle_fn(i32 noundef %0)
  %6 = add nsw i32 %5, %4
  ret i32 %6

7:                                                ; preds = %7, %1
  %8 = phi i32 [ %12, %7 ], [ 0, %1 ]
  %9 = phi i32 [ %11, %7 ], [ 0, %1 ]
  %10 = call i32 @hot_fn(i32 noundef %8)
  %11 = add nsw i32 %10, %9
  %12 = add nuw nsw i32 %8, 1
  %13 = icmp eq i32 %12, %0
  br i1 %13, label %3, label %7, !llvm.loop !8
}

; Function Attrs: nounwind uwtable
define dso_local i32 @main() local_unnamed_addr #3 {
  %1 = call i32 @outer_fn(i32 noundef 5)
  %2 = icmp slt i32 %1, 1
  %3 = zext i1 %2 to i32
  ret i32 %3
}

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5, !6}
!llvm.ident = !{!7}

!0 = !{i32 7, !"Dwarf Version", i32 5}
!1 = !{i32 2, !"Debug Info Version", i32 3}
!2 = !{i32 1, !"wchar_size", i32 4}
!3 = !{i32 8, !"PIC Level", i32 2}
!4 = !{i32 7, !"PIE Level", i32 2}
!5 = !{i32 7, !"uwtable", i32 1}
!6 = !{i32 7, !"frame-pointer", i32 2}
!7 = !{!"Debian clang version 14.0.6"}
!8 = distinct !{!8, !9, !10}
!9 = !{!"llvm.loop.mustprogress"}
!10 = !{!"llvm.loop.unroll.disable"}
