/// A single-value container: the value at one tape index.
struct TapeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: TapeDecoder
    let index: Int

    var codingPath: [any CodingKey] { decoder.path(of: index) }

    func decodeNil() -> Bool { decoder.view.kind(index) == .null }

    func decode(_ type: Int.Type) throws -> Int { try checked { try decoder.view.decodeInteger(Int.self, at: index) } }
    func decode(_ type: Int8.Type) throws -> Int8 { try checked { try decoder.view.decodeInteger(Int8.self, at: index) } }
    func decode(_ type: Int16.Type) throws -> Int16 { try checked { try decoder.view.decodeInteger(Int16.self, at: index) } }
    func decode(_ type: Int32.Type) throws -> Int32 { try checked { try decoder.view.decodeInteger(Int32.self, at: index) } }
    func decode(_ type: Int64.Type) throws -> Int64 { try checked { try decoder.view.decodeInteger(Int64.self, at: index) } }
    func decode(_ type: UInt.Type) throws -> UInt { try checked { try decoder.view.decodeInteger(UInt.self, at: index) } }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try checked { try decoder.view.decodeInteger(UInt8.self, at: index) } }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try checked { try decoder.view.decodeInteger(UInt16.self, at: index) } }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try checked { try decoder.view.decodeInteger(UInt32.self, at: index) } }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try checked { try decoder.view.decodeInteger(UInt64.self, at: index) } }
    func decode(_ type: Bool.Type) throws -> Bool { try checked { try decoder.view.decodeBool(at: index) } }
    func decode(_ type: String.Type) throws -> String { try checked { try decoder.view.decodeString(at: index) } }
    func decode(_ type: Double.Type) throws -> Double { try checked { try decoder.view.decodeDouble(at: index) } }
    func decode(_ type: Float.Type) throws -> Float { try checked { try decoder.view.decodeFloat(at: index) } }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(T.self, at: index) }

    /// Runs a scalar read; a type error is re-made with the decoder's path (super decoders override it).
    @inline(__always)
    private func checked<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch DecodingError.typeMismatch(let type, _) {
            throw decoder.mismatch(type, at: index)
        } catch DecodingError.valueNotFound(let type, _) {
            throw decoder.mismatch(type, at: index)
        }
    }
}
