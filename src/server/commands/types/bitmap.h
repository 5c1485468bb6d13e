// Pieces shared by the bitmap command files (bitmap.cpp: SETBIT GETBIT
// BITCOUNT BITPOS BITOP; bitfield.cpp: BITFIELD BITFIELD_RO). Bitmaps are
// ordinary string values edited in place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "server/core/command.h"

namespace server {

class Client;

void registerBitfieldCommands(CommandTable& t);  // BITFIELD BITFIELD_RO

// Parses a bit offset argument: a non-negative integer, or with
// allow_hash and bits > 0 "#N" meaning N * bits. Offsets whose byte lies
// at or past proto-max-bulk-len are refused. Replies "bit offset is not an
// integer or out of range" and returns false on failure.
bool parseBitOffset(Client* c, size_t argi, bool allow_hash, int bits, uint64_t* offset);

// The string at key for a bit write, created when absent and zero-filled
// up to the byte holding bit `max_bit`. Returns its bytes (*len of them)
// and sets *grown when the key was created or lengthened; nullptr after
// replying WRONGTYPE when the key holds another type.
uint8_t* stringForBitWrite(Client* c, std::string_view key, uint64_t max_bit, size_t* len,
                           bool* grown);

}  // namespace server
