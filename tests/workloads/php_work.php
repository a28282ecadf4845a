<?php
// PHP workloads for smolder's PHP tests (PHP 7.0+).
//   php_work.php chain SECONDS     outer -> Klass::run -> inner, tight loops in inner
//   php_work.php chains SECONDS    a_outer -> a_mid -> a_leaf (zlib's gzcompress)
//                                  and b_outer -> b_mid -> b_leaf (PCRE's
//                                  preg_match), the main loop switching
//                                  chains about every millisecond
//   php_work.php callback SECONDS  outer_cb -> array_map -> mapped: a PHP
//                                  function a builtin calls
//   php_work.php deep SECONDS      60 PHP frames (level x 58, deep_leaf) over
//                                  gzcompress
// Time is kept by the wall clock (microtime): a CPU-time clock is a
// system call where a busy host parks the thread.

function inner($n)
{
    $s = 0;
    for ($i = 0; $i < $n; $i++) {
        $s += $i * $i % 7;
    }
    return $s;
}

class Klass
{
    public function run($n)
    {
        return inner($n);
    }
}

function outer($until)
{
    $k = new Klass();
    $t = 0;
    while (microtime(true) < $until) {
        $t += $k->run(20000);
    }
    return $t;
}

function a_leaf($blob, $until)
{
    $end = min($until, microtime(true) + 0.001);
    while (microtime(true) < $end) {
        gzcompress($blob, 6);
    }
}

function a_mid($blob, $until) { a_leaf($blob, $until); }
function a_outer($blob, $until) { a_mid($blob, $until); }

function b_leaf($subject, $until)
{
    $end = min($until, microtime(true) + 0.001);
    while (microtime(true) < $end) {
        preg_match('/(a|b|c)*d(e+f)?[0-9]{3,}x$/', $subject);
    }
}

function b_mid($subject, $until) { b_leaf($subject, $until); }
function b_outer($subject, $until) { b_mid($subject, $until); }

function chains($until)
{
    $blob = str_repeat("smolder reads php frames ", 400);
    $subject = str_repeat("abcabcabcabc", 200) . "123";
    while (microtime(true) < $until) {
        a_outer($blob, $until);
        b_outer($subject, $until);
    }
}

function mapped($x)
{
    return inner(2000) + $x;
}

function outer_cb($until)
{
    while (microtime(true) < $until) {
        array_map('mapped', [1, 2, 3, 4]);
    }
}

function deep_leaf($blob, $until)
{
    while (microtime(true) < $until) {
        gzcompress($blob, 9);
    }
}

function level($n, $blob, $until)
{
    if ($n == 0) {
        deep_leaf($blob, $until);
        return;
    }
    level($n - 1, $blob, $until);
}

$mode = $argv[1] ?? 'chain';
$until = microtime(true) + (float)($argv[2] ?? 3);
switch ($mode) {
case 'chain':
    outer($until);
    break;
case 'chains':
    chains($until);
    break;
case 'callback':
    outer_cb($until);
    break;
case 'deep':
    level(57, str_repeat("deep php stacks ", 2000), $until);
    break;
default:
    fwrite(STDERR, "unknown mode $mode\n");
    exit(2);
}
