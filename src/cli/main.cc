#include <cstdio>
int main() { std::puts("plasmient"); return 0; }
