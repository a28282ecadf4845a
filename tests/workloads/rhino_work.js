// A JavaScript workload for Rhino (JavaScript compiled to Java classes,
// run on a JVM): splits, joins and searches of strings, objects and their
// properties, sorts with a comparator, recursion. The JIT code it makes is
// the shapes real Java programs run: small compiled leaf methods, string
// intrinsics that move the stack pointer, C1 type checks pushing their
// operands for a leaf stub, stub routines for array copies.
//
// Usage: rhino rhino_work.js SECONDS
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

function strings(n) {
	var parts = [], s, c = 0, i;
	for (i = 0; i < n; i++)
		parts.push("item" + i);
	s = parts.join(",");
	for (i = 0; i < 200; i++)
		c += s.indexOf("item" + (i * 7)) + s.split(",").length;
	return c;
}

function objects(n) {
	var m = {}, t = 0, i, k;
	for (i = 0; i < n; i++)
		m["k" + (i % 1000)] = { v: i, w: [i, i + 1] };
	for (k in m)
		t += m[k].v + m[k].w[1];
	return t;
}

function sorts(n) {
	var a = [], i;
	for (i = 0; i < n; i++)
		a.push((i * 7919) % 10007);
	a.sort(function (x, y) { return x - y; });
	return a[n >> 1];
}

var end = Date.now() + 1000 * parseFloat(arguments[0] || "10");
var r = 0;
while (Date.now() < end)
	r += fib(22) + strings(2000) + objects(20000) + sorts(20000);
// linger, so that a profiler handles the last samples while the JVM runs
java.lang.Thread.sleep(700);
print(r);
