<?php
// A program for PHP 8.2's JIT (test/php): outer_loop -> middle -> leaf_work, hot, and a builtin (hrtime) called from JIT code.
function leaf_work(int $n): int {
    $s = 0;
    for ($i = 0; $i < $n; $i++) {
        $s += ($i * 7) % 13;
    }
    return $s;
}

function middle(int $k): int {
    $t = leaf_work(200);
    if ($k % 1000 == 999) {
        $t += hrtime(true) & 1;      // builtin called from JIT code -> zif_hrtime -> clock_gettime
    }
    return $t;
}

function outer_loop(int $iters): int {
    $acc = 0;
    for ($k = 0; $k < $iters; $k++) {
        $acc += middle($k);
    }
    return $acc;
}

$iters = (int)($argv[1] ?? 20000);
$rounds = (int)($argv[2] ?? 1);
for ($r = 0; $r < $rounds; $r++) {
    echo outer_loop($iters), "\n";
}
