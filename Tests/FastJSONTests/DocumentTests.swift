import FastJSON
import Testing

/// `FastJSONDocument`: values read by hand answer what `Decodable` through `FastJSONDecoder` reads, and nil (never a
/// trap) for anything of another type.
@Suite struct DocumentTests {
    @Test("members found in any order, also in objects with escaped keys; absent ones nil")
    func members() throws {
        let root = try FastJSONDecoder().document(Array(#"{"b":1,"a":"x","c":[true,null,2.5]}"#.utf8)).root
        #expect(root.kind == .object && root.count == 3)
        #expect(root["c"]?.kind == .array && root["a"]?.string == "x" && root["b"]?.integer(Int.self) == 1)
        #expect(root["a"]?.string == "x", "the same member twice")
        #expect(root["d"] == nil && root["a"]?["a"] == nil, "absent, or not an object")
        let escaped = try FastJSONDecoder().document(Array(#"{"k\u0065y":5,"other":6}"#.utf8)).root
        #expect(escaped["key"]?.integer(Int.self) == 5 && escaped["other"]?.integer(Int.self) == 6 && escaped["ke"] == nil)
    }

    @Test("elements in order, each of its kind; only arrays have elements")
    func elements() throws {
        let root = try FastJSONDecoder().document(Array(#"[{"a":[1,2]},true,null,"s",-3,[]]"#.utf8)).root
        let kinds = root.elements.map(\.kind)
        #expect(kinds == [.object, .bool, .null, .string, .number, .array])
        #expect(Array(root.elements)[1].bool == true && Array(root.elements)[2].isNull && Array(root.elements)[4].integer(Int8.self) == -3)
        #expect(Array(root.elements)[0]["a"]?.elements.compactMap { $0.integer(Int.self) } == [1, 2])
        #expect(Array(Array(root.elements)[3].elements).isEmpty && root.elements.underestimatedCount == 6)
    }

    @Test("numbers: exact integers only, ranges checked; strings compared by bytes or decoded")
    func scalars() throws {
        let root = try FastJSONDecoder().document(Array(#"[1e2,1.5,300,-1,9223372036854775808,"produc\u0074ion","sandbox"]"#.utf8)).root
        let values = Array(root.elements)
        #expect(values[0].integer(Int.self) == 100 && values[1].integer(Int.self) == nil && values[1].double == 1.5)
        #expect(values[2].integer(UInt8.self) == nil && values[3].integer(UInt.self) == nil && values[4].integer(Int64.self) == nil)
        #expect(values[4].double == 9_223_372_036_854_775_808 && values[5].string == "production")
        #expect(values[5].isString("production") && values[6].isString("sandbox") && !values[6].isString("sandbo"))
        #expect(!values[0].isString("100") && values[0].string == nil && values[5].integer(Int.self) == nil && values[0].bool == nil)
    }

    @Test("malformed input is refused with the offset, as by decode")
    func malformed() {
        #expect(throws: FastJSONError.self) { try FastJSONDecoder().document(Array(#"{"a":1,"a":2}"#.utf8)) }
        #expect(throws: FastJSONError.self) { try FastJSONDecoder().document(Array("[1,]".utf8)) }
    }
}
