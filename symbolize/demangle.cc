/* placeholder */
extern "C" int demangle(const char *, char *, unsigned long);
