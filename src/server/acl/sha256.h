// SHA-256 (FIPS 180-4), for ACL password hashes. Small and self-contained:
// hashing a password is rare (AUTH, ACL SETUSER), so no speed tricks.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace server::acl {

// The 32-byte digest of data.
std::array<uint8_t, 32> sha256(std::string_view data);

// The digest as 64 lower-case hex digits, the form ACL GETUSER shows and
// `#<hash>` rules take.
std::string sha256Hex(std::string_view data);

}  // namespace server::acl
