import Contracts
import FastJSON
import Foundation
import Testing

/// Scalars, strings and numbers: same result (or same failure) as JSONDecoder.
@Suite struct ValueTests {
    func both<T: Decodable & Equatable>(_ json: String, _ type: T.Type) -> (fast: T?, foundation: T?) {
        (try? FastJSONDecoder().decode(T.self, from: Array(json.utf8)),
         try? JSONDecoder().decode(T.self, from: Data(json.utf8)))
    }

    @Test(arguments: ["[0]", "[-0]", "[1.0]", "[1e2]", "[1E+2]", "[100e-2]", "[-0.0]", "[1.5]", "[1e20]",
                      "[9223372036854775807]", "[-9223372036854775808]", "[9223372036854775808]",
                      "[-9223372036854775809]", "[true]", "[\"1\"]", "[null]"])
    func integersMatchJSONDecoder(_ json: String) {
        let (fast, foundation) = both(json, [Int].self)
        #expect(fast == foundation, "\(json)")
        let (fast64, foundation64) = both(json, [Int64].self)
        #expect(fast64 == foundation64, "\(json)")
        let (fast8, foundation8) = both(json, [UInt8].self)
        #expect(fast8 == foundation8, "\(json)")
    }

    @Test(arguments: ["[0.1]", "[1e300]", "[-1e300]", "[1e400]", "[1e-400]", "[4.9e-324]", "[2.2250738585072014e-308]",
                      "[5]", "[123456789012345678901234567890]", "[0.30000000000000004]", "[1.7976931348623157e308]",
                      "[3.141592653589793238462643383279]", "[-0.0]", "[12.5e-3]", "[0.000001]", "[1E2]"])
    func doublesMatchJSONDecoder(_ json: String) throws {
        let (fast, foundation) = both(json, [Double].self)
        #expect(fast == foundation, "\(json)")
        if let fast, let foundation, let a = fast.first, let b = foundation.first {
            #expect(a.bitPattern == b.bitPattern, "\(json): sign and bits")
        }
    }

    /// RFC 8259 allows "0e5"; JSONDecoder rejects it, FastJSON (stricter elsewhere) accepts it.
    @Test func zeroWithExponentIsValidJSON() throws {
        #expect(try FastJSONDecoder().decode([Double].self, from: Array("[0e5, -0E-2]".utf8)) == [0, -0.0])
    }

    @Test func fractionAsIntIsRejectedWithPath() throws {
        struct Row: Decodable { var runs: Int }
        #expect(throws: DecodingError.self) { try FastJSONDecoder().decode(Row.self, from: Array(#"{"runs":1.5}"#.utf8)) }
        do {
            _ = try FastJSONDecoder().decode(Row.self, from: Array(#"{"runs":1.5}"#.utf8))
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.stringValue) == ["runs"])
        }
    }

    @Test func stringsAndEscapes() {
        for json in [#"["plain"]"#, #"["a\"b\\c\/d\b\f\n\r\t"]"#, #"["\u00e9\u4e2d"]"#, #"["\ud83d\ude00 smile"]"#,
                     #"["héllo wörld 中文 😀"]"#, #"["\u0000"]"#, #"[""]"#, "[\"" + String(repeating: "x", count: 300) + "\"]"] {
            let (fast, foundation) = both(json, [String].self)
            #expect(fast != nil && fast == foundation, "\(json)")
        }
        #expect(both(#"["\ud83d\ude00"]"#, [String].self).fast == ["😀"])
    }

    @Test func untypedValuesMatch() {
        let json = #"{"a":[1,2.5,-0,1.0,"x",true,false,null,{"b":{}},[]],"c":{"d":[[[]]]},"e":1e2}"#
        let (fast, foundation) = both(json, JSONValue.self)
        #expect(fast != nil && fast == foundation)
    }

    @Test func dictionariesOptionalsAndNesting() {
        struct Inner: Codable, Equatable { var x: Int?; var y: [String: Double]; var z: [[Int]] }
        struct Outer: Codable, Equatable { var inner: Inner?; var list: [Inner]; var flag: Bool?; var name: String? }
        let json = #"{"inner":{"y":{"p":1,"q":2.5},"z":[[1],[],[2,3]]},"list":[{"x":null,"y":{},"z":[]}],"flag":null}"#
        let (fast, foundation) = both(json, Outer.self)
        #expect(fast != nil && fast == foundation)
    }

    @Test func superDecoderAndNestedContainers() throws {
        struct Base: Decodable { var id: Int }
        struct Derived: Decodable {
            var base: Base; var tag: String; var first: Int
            enum Keys: String, CodingKey { case tag, nested, `super` }
            enum NestedKeys: String, CodingKey { case first }
            init(from decoder: Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                base = try Base(from: c.superDecoder())
                tag = try c.decode(String.self, forKey: .tag)
                var list = try c.nestedUnkeyedContainer(forKey: .nested)
                first = try list.nestedContainer(keyedBy: NestedKeys.self).decode(Int.self, forKey: .first)
            }
        }
        let value = try FastJSONDecoder().decode(Derived.self, from: Array(#"{"super":{"id":4},"tag":"t","nested":[{"first":9}]}"#.utf8))
        #expect(value.base.id == 4 && value.tag == "t" && value.first == 9)
    }
}
