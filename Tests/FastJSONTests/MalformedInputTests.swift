import FastJSON
import Foundation
import Testing

/// Bad JSON is rejected with a typed error naming the byte offset; nothing crashes or recurses unboundedly.
@Suite struct MalformedInputTests {
    func reason(_ json: String, depth: Int = 512) -> (FastJSONError.Reason, Int)? {
        do {
            try FastJSONDecoder(maximumDepth: depth).validate(Array(json.utf8))
            return nil
        } catch {
            return (error.reason, error.offset)
        }
    }

    @Test func truncatedInputs() {
        for json in ["", "[", "{", "{\"a\"", "{\"a\":", "[1,", "\"abc", "tru", "[1", "{\"a\":1", "\"\\u12"] {
            #expect(reason(json) != nil, "\(json.debugDescription) accepted")
        }
        #expect(reason("[1,")?.0 == .unexpectedEnd)
    }

    @Test func badEscapesAndStrings() {
        #expect(reason(#"["\x"]"#)?.0 == .invalidEscape)
        #expect(reason(#"["\u12G4"]"#)?.0 == .invalidUnicodeEscape)
        #expect(reason(#"["\ud83d"]"#)?.0 == .invalidUnicodeEscape)
        #expect(reason(#"["\ude00"]"#)?.0 == .invalidUnicodeEscape)
        #expect(reason(#"["\ud83d\u0041"]"#)?.0 == .invalidUnicodeEscape)
        #expect(reason("[\"a\u{01}b\"]")?.0 == .controlCharacterInString)
        #expect(reason("[\"a\nb\"]")?.0 == .controlCharacterInString)
        let badUTF8: [[UInt8]] = [[0x5B, 0x22, 0xFF, 0x22, 0x5D], [0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D],
                                  [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], [0x5B, 0x22, 0xE4, 0xB8, 0x22, 0x5D]]
        for bytes in badUTF8 {
            #expect(throws: FastJSONError.self) { try FastJSONDecoder().validate(bytes) }
        }
    }

    @Test func numbersOutsideTheGrammar() {
        for json in ["[01]", "[1.]", "[.5]", "[-]", "[1e]", "[1e+]", "[+1]", "[NaN]", "[Infinity]", "[0x10]", "[--1]"] {
            #expect(reason(json) != nil, "\(json) accepted")
        }
        #expect(reason("[1.]")?.0 == .invalidNumber)
        #expect(reason("[1.]")?.1 == 3)
    }

    @Test func trailingGarbageAndCommas() {
        #expect(reason("[1] x")?.0 == .trailingData)
        #expect(reason("[1] x")?.1 == 4)
        #expect(reason("{} {}")?.0 == .trailingData)
        #expect(reason("[1,]") != nil)
        #expect(reason("{\"a\":1,}") != nil)
        #expect(reason("{\"a\" 1}") != nil)
        #expect(reason("[1 2]") != nil)
        #expect(reason(" \n[1]\t ") == nil)
        #expect(reason("\u{FEFF}[1]") == nil)
    }

    @Test func duplicateKeysAreRejected() {
        #expect(reason(#"{"a":1,"a":2}"#)?.0 == .duplicateKey("a"))
        #expect(reason(#"{"a":1,"\u0061":2}"#)?.0 == .duplicateKey("a"))
        let many = "{" + (0..<200).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k7\":0}"
        #expect(reason(many)?.0 == .duplicateKey("k7"))
        let distinct = "{" + (0..<200).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        #expect(reason(distinct) == nil)
    }

    @Test func deepNestingIsBoundedWithoutRecursion() {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(reason(ok) == nil)
        let tooDeep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(reason(tooDeep)?.0 == .tooDeep(limit: 512))
        let huge = String(repeating: "{\"a\":", count: 200_000) + "1" + String(repeating: "}", count: 200_000)
        #expect(reason(huge)?.0 == .tooDeep(limit: 512))
    }

    @Test func decodeWrapsSyntaxErrorsLikeJSONDecoder() {
        do {
            _ = try FastJSONDecoder().decode([Int].self, from: Array("[1,2".utf8))
            Issue.record("accepted")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.isEmpty)
            #expect((context.underlyingError as? FastJSONError)?.reason == .unexpectedEnd)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
