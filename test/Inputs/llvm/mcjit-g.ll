; mcjit.ll's program with its debug information (clang -g), its source
; /srv/app/mcjit.c laid out as:
;   1 #include <unistd.h>
;   3 int leaf_fn(int x) { usleep(1000) (line 4); return x + 1; }
;   8 int middle_fn(int x) { int r = leaf_fn(x) (line 9); return r * 2; }
;  13 int hot_fn(int i) ...
;  17 int outer_fn(int n) { ... return acc + middle_fn(n) (line 21); }
;  24 int main(void) { return outer_fn(5) ... (line 25); }
; ModuleID = 'prog14.bc'
source_filename = "mcjit.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @leaf_fn(i32 noundef %0) local_unnamed_addr #0 !dbg !12 {
    #dbg_value(i32 %0, !16, !DIExpression(), !17)
  %2 = call i32 @usleep(i32 noundef 1000) #4, !dbg !18
  %3 = add nsw i32 %0, 1, !dbg !19
  ret i32 %3, !dbg !20
}

declare !dbg !21 i32 @usleep(i32 noundef) local_unnamed_addr #1

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @middle_fn(i32 noundef %0) local_unnamed_addr #0 !dbg !29 {
    #dbg_value(i32 %0, !31, !DIExpression(), !33)
  %2 = call i32 @leaf_fn(i32 noundef %0), !dbg !34
    #dbg_value(i32 %2, !32, !DIExpression(), !33)
  %3 = shl nsw i32 %2, 1, !dbg !35
  ret i32 %3, !dbg !36
}

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @hot_fn(i32 noundef %0) local_unnamed_addr #0 !dbg !37 {
    #dbg_value(i32 %0, !39, !DIExpression(), !40)
  %2 = call i32 @getpid() #4, !dbg !41
  %3 = srem i32 %2, 7, !dbg !42
  %4 = add nsw i32 %3, %0, !dbg !43
  ret i32 %4, !dbg !44
}

; Function Attrs: nounwind
declare !dbg !45 i32 @getpid() local_unnamed_addr #2

; Function Attrs: noinline nounwind uwtable
define dso_local i32 @outer_fn(i32 noundef %0) local_unnamed_addr #0 !dbg !49 {
    #dbg_value(i32 %0, !51, !DIExpression(), !55)
    #dbg_value(i32 0, !52, !DIExpression(), !55)
    #dbg_value(i32 0, !53, !DIExpression(), !56)
  %2 = icmp sgt i32 %0, 0, !dbg !57
  br i1 %2, label %7, label %3, !dbg !59

3:                                                ; preds = %7, %1
  %4 = phi i32 [ 0, %1 ], [ %11, %7 ], !dbg !55
  %5 = call i32 @middle_fn(i32 noundef %0), !dbg !60
  %6 = add nsw i32 %5, %4, !dbg !61
  ret i32 %6, !dbg !62

7:                                                ; preds = %1, %7
  %8 = phi i32 [ %12, %7 ], [ 0, %1 ]
  %9 = phi i32 [ %11, %7 ], [ 0, %1 ]
    #dbg_value(i32 %8, !53, !DIExpression(), !56)
    #dbg_value(i32 %9, !52, !DIExpression(), !55)
  %10 = call i32 @hot_fn(i32 noundef %8), !dbg !63
  %11 = add nsw i32 %10, %9, !dbg !64
    #dbg_value(i32 %11, !52, !DIExpression(), !55)
  %12 = add nuw nsw i32 %8, 1, !dbg !65
    #dbg_value(i32 %12, !53, !DIExpression(), !56)
  %13 = icmp eq i32 %12, %0, !dbg !57
  br i1 %13, label %3, label %7, !dbg !59, !llvm.loop !66
}

; Function Attrs: nounwind uwtable
define dso_local i32 @main() local_unnamed_addr #3 !dbg !70 {
  %1 = call i32 @outer_fn(i32 noundef 5), !dbg !72
  %2 = icmp slt i32 %1, 1, !dbg !73
  %3 = zext i1 %2 to i32, !dbg !72
  ret i32 %3, !dbg !74
}

attributes #0 = { noinline nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nounwind uwtable "frame-pointer"="all" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!4, !5, !6, !7, !8, !9, !10}
!llvm.ident = !{!11}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "Debian clang version 14.0.6", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, retainedTypes: !2, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "mcjit.c", directory: "/srv/app", checksumkind: CSK_MD5, checksum: "a7ac26cb503f18abad8fedcd0a8249bd")
!2 = !{!3}
!3 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = !{i32 2, !"Debug Info Version", i32 3}
!6 = !{i32 1, !"wchar_size", i32 4}
!7 = !{i32 8, !"PIC Level", i32 2}
!8 = !{i32 7, !"PIE Level", i32 2}
!9 = !{i32 7, !"uwtable", i32 1}
!10 = !{i32 7, !"frame-pointer", i32 2}
!11 = !{!"Debian clang version 14.0.6"}
!12 = distinct !DISubprogram(name: "leaf_fn", scope: !1, file: !1, line: 3, type: !13, scopeLine: 3, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !15)
!13 = !DISubroutineType(types: !14)
!14 = !{!3, !3}
!15 = !{!16}
!16 = !DILocalVariable(name: "x", arg: 1, scope: !12, file: !1, line: 3, type: !3)
!17 = !DILocation(line: 0, scope: !12)
!18 = !DILocation(line: 4, column: 3, scope: !12)
!19 = !DILocation(line: 5, column: 12, scope: !12)
!20 = !DILocation(line: 5, column: 3, scope: !12)
!21 = !DISubprogram(name: "usleep", scope: !22, file: !22, line: 480, type: !23, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized, retainedNodes: !28)
!22 = !DIFile(filename: "/usr/include/unistd.h", directory: "", checksumkind: CSK_MD5, checksum: "ed37c2e6f30ba31a8b41e4d70547c39c")
!23 = !DISubroutineType(types: !24)
!24 = !{!3, !25}
!25 = !DIDerivedType(tag: DW_TAG_typedef, name: "__useconds_t", file: !26, line: 161, baseType: !27)
!26 = !DIFile(filename: "/usr/include/x86_64-linux-gnu/bits/types.h", directory: "", checksumkind: CSK_MD5, checksum: "d108b5f93a74c50510d7d9bc0ab36df9")
!27 = !DIBasicType(name: "unsigned int", size: 32, encoding: DW_ATE_unsigned)
!28 = !{}
!29 = distinct !DISubprogram(name: "middle_fn", scope: !1, file: !1, line: 8, type: !13, scopeLine: 8, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !30)
!30 = !{!31, !32}
!31 = !DILocalVariable(name: "x", arg: 1, scope: !29, file: !1, line: 8, type: !3)
!32 = !DILocalVariable(name: "r", scope: !29, file: !1, line: 9, type: !3)
!33 = !DILocation(line: 0, scope: !29)
!34 = !DILocation(line: 9, column: 11, scope: !29)
!35 = !DILocation(line: 10, column: 12, scope: !29)
!36 = !DILocation(line: 10, column: 3, scope: !29)
!37 = distinct !DISubprogram(name: "hot_fn", scope: !1, file: !1, line: 13, type: !13, scopeLine: 13, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !38)
!38 = !{!39}
!39 = !DILocalVariable(name: "i", arg: 1, scope: !37, file: !1, line: 13, type: !3)
!40 = !DILocation(line: 0, scope: !37)
!41 = !DILocation(line: 14, column: 15, scope: !37)
!42 = !DILocation(line: 14, column: 24, scope: !37)
!43 = !DILocation(line: 14, column: 28, scope: !37)
!44 = !DILocation(line: 14, column: 3, scope: !37)
!45 = !DISubprogram(name: "getpid", scope: !22, file: !22, line: 650, type: !46, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized, retainedNodes: !28)
!46 = !DISubroutineType(types: !47)
!47 = !{!48}
!48 = !DIDerivedType(tag: DW_TAG_typedef, name: "__pid_t", file: !26, line: 154, baseType: !3)
!49 = distinct !DISubprogram(name: "outer_fn", scope: !1, file: !1, line: 17, type: !13, scopeLine: 17, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !50)
!50 = !{!51, !52, !53}
!51 = !DILocalVariable(name: "n", arg: 1, scope: !49, file: !1, line: 17, type: !3)
!52 = !DILocalVariable(name: "acc", scope: !49, file: !1, line: 18, type: !3)
!53 = !DILocalVariable(name: "i", scope: !54, file: !1, line: 19, type: !3)
!54 = distinct !DILexicalBlock(scope: !49, file: !1, line: 19, column: 3)
!55 = !DILocation(line: 0, scope: !49)
!56 = !DILocation(line: 0, scope: !54)
!57 = !DILocation(line: 19, column: 21, scope: !58)
!58 = distinct !DILexicalBlock(scope: !54, file: !1, line: 19, column: 3)
!59 = !DILocation(line: 19, column: 3, scope: !54)
!60 = !DILocation(line: 21, column: 16, scope: !49)
!61 = !DILocation(line: 21, column: 14, scope: !49)
!62 = !DILocation(line: 21, column: 3, scope: !49)
!63 = !DILocation(line: 20, column: 12, scope: !58)
!64 = !DILocation(line: 20, column: 9, scope: !58)
!65 = !DILocation(line: 19, column: 27, scope: !58)
!66 = distinct !{!66, !59, !67, !68, !69}
!67 = !DILocation(line: 20, column: 20, scope: !54)
!68 = !{!"llvm.loop.mustprogress"}
!69 = !{!"llvm.loop.unroll.disable"}
!70 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 24, type: !71, scopeLine: 24, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !28)
!71 = !DISubroutineType(types: !2)
!72 = !DILocation(line: 25, column: 10, scope: !70)
!73 = !DILocation(line: 25, column: 22, scope: !70)
!74 = !DILocation(line: 25, column: 3, scope: !70)
