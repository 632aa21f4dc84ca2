//===--- JemallocConfig.cpp - how torchlint's allocator is set up ---------===//
//
// Linked into the torchlint executable only when it uses jemalloc, which
// reads this symbol at start-up.
//
//===----------------------------------------------------------------------===//

// Huge pages for every arena: a kept unit's AST is about 150 MB (koba-jon's
// units), written once and read by the later rounds, so each 4 KiB page fault
// is paid for memory that is never returned. "always" still follows the
// system's setting: where transparent huge pages are off it changes nothing.
extern "C" const char *malloc_conf = "thp:always,metadata_thp:auto";
