import Runtime
import Testing

@Suite struct FNV1aTests {
    @Test("FNV-1a 64 matches the published test vectors")
    func vectors() {
        #expect(FNV1a.hash64("") == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash64("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash64("foobar") == 0x8594_4171_f739_67e8)
        #expect(FNV1a.hash64(Array("foobar".utf8)) == FNV1a.hash64("foobar"))
    }

    @Test("hex is 16 lower-case digits, zero-padded")
    func hex() {
        #expect(FNV1a.hex(0xaf63_dc4c_8601_ec8c) == "af63dc4c8601ec8c")
        #expect(FNV1a.hex(0x1f) == "000000000000001f")
    }
}
