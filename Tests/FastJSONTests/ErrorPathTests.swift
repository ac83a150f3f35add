import SharedTestSupport
import Cricket
import FastJSON
import Foundation
import Testing

/// DecodingError cases and coding paths match JSONDecoder's, so callers still name the failing field.
@Suite struct ErrorPathTests {
    struct Leaf: Decodable { var c: Int }
    struct Inner: Decodable { var b: [Leaf] }
    struct Root: Decodable { var a: Inner }

    enum Shape: Equatable { case keyNotFound(String), typeMismatch, valueNotFound, dataCorrupted, other }

    func describe(_ body: () throws -> Void) -> (Shape, [String]) {
        do {
            try body()
            return (.other, ["no error"])
        } catch DecodingError.keyNotFound(let key, let context) {
            return (.keyNotFound(key.stringValue), context.codingPath.map(\.stringValue))
        } catch DecodingError.typeMismatch(_, let context) {
            return (.typeMismatch, context.codingPath.map(\.stringValue))
        } catch DecodingError.valueNotFound(_, let context) {
            return (.valueNotFound, context.codingPath.map(\.stringValue))
        } catch DecodingError.dataCorrupted(let context) {
            return (.dataCorrupted, context.codingPath.map(\.stringValue))
        } catch {
            return (.other, [])
        }
    }

    @Test(arguments: [#"{"a":{"b":[{"c":1},{"d":2}]}}"#, #"{"a":{"b":[{"c":1},{"c":"s"}]}}"#,
                      #"{"a":{"b":[{"c":1},{"c":null}]}}"#, #"{"a":{"b":{}}}"#, #"{"a":{"b":5}}"#, #"{"a":[]}"#,
                      #"{"a":null}"#, #"{}"#, #"{"a":{"b":[{"c":true}]}}"#, #"{"a":{"b":[null]}}"#])
    func sameErrorAndPathAsJSONDecoder(_ json: String) {
        let fast = describe { _ = try FastJSONDecoder().decode(Root.self, from: Array(json.utf8)) }
        let foundation = describe { _ = try JSONDecoder().decode(Root.self, from: Data(json.utf8)) }
        #expect(fast.0 == foundation.0, "\(json)")
        #expect(fast.1 == foundation.1, "\(json)")
    }

    @Test func sportMonksFieldPathsSurvive() throws {
        let url = DataDirectory.reference.appendingPathComponent("fixture-71344-live.json")
        var text = try String(contentsOf: url, encoding: .utf8)
        // Break the first ball's score: runs must be an Int.
        let range = try #require(text.range(of: #""runs": 1,"#) ?? text.range(of: #""runs":1,"#))
        text.replaceSubrange(range, with: #""runs": "one","#)
        struct Envelope: Decodable { var data: SportMonksFixture }
        let fast = describe { _ = try FastJSONDecoder().decode(Envelope.self, from: Array(text.utf8)) }
        let foundation = describe { _ = try JSONDecoder().decode(Envelope.self, from: Data(text.utf8)) }
        #expect(fast.0 == .typeMismatch)
        #expect(fast.1 == foundation.1)
        #expect(fast.1.first == "data")
    }
}
