<?php
// A PHP-FPM request for smolder's PHP test: handle_request ->
// render_page -> compute_digest, about 60 ms of CPU in PHP code.

function compute_digest($rounds)
{
    $h = 0;
    for ($i = 0; $i < $rounds; $i++) {
        $h = ($h * 31 + $i) % 1000003;
    }
    return $h;
}

function render_page($rounds)
{
    return "digest " . compute_digest($rounds) . "\n";
}

function handle_request()
{
    $rounds = isset($_GET['rounds']) ? (int)$_GET['rounds'] : 1500000;
    echo render_page($rounds);
}

handle_request();
