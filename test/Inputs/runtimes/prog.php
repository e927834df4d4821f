<?php
// The runtime matrix's program for PHP 8.2's opcache JIT
// (test/scripts/runtime_matrix.py): top -> outerLoop -> middle -> leaf -> a
// native call every 64 iterations (getmypid(): libc's getpid, which
// no other PHP code here calls). At the first native call leaf prints PHP's
// own stack trace before making the call. The argument is the number of
// iterations.
$printed = false;

function leaf(int $i): int {
    global $printed;
    if (($i & 63) == 0) {
        if (!$printed) {
            $printed = true;
            echo "Error: leaf\n", (new Exception("leaf"))->getTraceAsString(), "\n";
        }
        getmypid();
    }
    return ($i * 31) ^ ($i >> 3);
}

function middle(int $i): int {
    return leaf($i) + ($i & 7);
}

function outerLoop(int $n): int {
    $s = 0;
    for ($i = 0; $i < $n; $i++) {
        $s += middle($i);
    }
    return $s;
}

function top(int $n): int {
    return outerLoop($n);
}

echo "result ", top((int)($argv[1] ?? 100000)), "\n";
