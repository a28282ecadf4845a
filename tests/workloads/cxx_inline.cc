// Workload (C++): templates, namespaces and a forced-inline function inside a
// noinline one, so DWARF names an inlined frame: ns::Matrix<double>::multiply
// with ns::detail::dot<double> inlined into it.
#include <cstddef>
#include <cstdlib>
#include <ctime>
#include <vector>

namespace ns {
namespace detail {

template <typename T>
__attribute__((always_inline)) inline T dot(const T *x, const T *y, std::size_t n, std::size_t stride)
{
	T s = T();
	for (std::size_t k = 0; k < n; k++)
		s += x[k] * y[k * stride];
	return s;
}

} // namespace detail

template <typename T>
class Matrix {
public:
	explicit Matrix(std::size_t n) : n_(n), v_(n * n, T(1) / T(n)) {}

	__attribute__((noinline, noclone)) void multiply(const Matrix &o, Matrix &out) const
	{
		for (std::size_t i = 0; i < n_; i++)
			for (std::size_t j = 0; j < n_; j++)
				out.v_[i * n_ + j] = detail::dot(&v_[i * n_], &o.v_[j], n_, n_);
	}

	T trace() const
	{
		T t = T();
		for (std::size_t i = 0; i < n_; i++)
			t += v_[i * n_ + i];
		return t;
	}

private:
	std::size_t n_;
	std::vector<T> v_;
};

} // namespace ns

volatile double sink;

static double now()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::strtod(argv[1], 0) : 3.0;
	if (!(secs > 0) || secs > 3600)
		secs = 3.0;
	double end = now() + secs;
	ns::Matrix<double> a(96), b(96), c(96);

	while (now() < end) {
		a.multiply(b, c);
		sink = sink + c.trace();
	}
	return 0;
}
