// Does not compile: the header is missing.
#include "missing_header.h"

int main() { return missing(); }
