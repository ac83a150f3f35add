import CLibPQ
#if canImport(Glibc)
import Glibc
#endif

/// Lays out parameters as the C arrays `PQsendQueryParams` wants, valid for one call.
enum PQParameters {
    /// Calls `body` with (count, types, values, lengths, formats); every buffer is freed afterwards.
    /// - Throws: `invalidParameter` for a text value that contains a NUL byte (libpq would cut it).
    static func with<R>(
        _ bindings: [PostgresBinding?],
        _ body: (
            Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
            UnsafePointer<Int32>?
        ) throws -> R
    ) throws -> R {
        var types = [Oid]()
        var lengths = [Int32]()
        var formats = [Int32]()
        var values = [UnsafeMutablePointer<CChar>?]()
        types.reserveCapacity(bindings.count)
        defer { for value in values { value?.deallocate() } }
        for (index, binding) in bindings.enumerated() {
            guard let binding else {
                types.append(0)
                lengths.append(0)
                formats.append(0)
                values.append(nil)
                continue
            }
            if binding.format == .text, binding.bytes.contains(0) {
                throw PostgresError.invalidParameter(index: index, reason: "a text value contains a NUL byte")
            }
            guard binding.bytes.count < Int32.max else {
                throw PostgresError.invalidParameter(index: index, reason: "value larger than 2 GB")
            }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: binding.bytes.count + 1)
            binding.bytes.withUnsafeBytes { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress ?? UnsafeRawPointer(buffer), byteCount: source.count)
            }
            buffer[binding.bytes.count] = 0
            values.append(buffer)
            types.append(binding.type.rawValue)
            lengths.append(Int32(binding.bytes.count))
            formats.append(binding.format.rawValue)
        }
        let constValues = values.map { UnsafePointer($0) }
        return try types.withUnsafeBufferPointer { types in
            try constValues.withUnsafeBufferPointer { values in
                try lengths.withUnsafeBufferPointer { lengths in
                    try formats.withUnsafeBufferPointer { formats in
                        try body(
                            Int32(bindings.count), types.baseAddress, values.baseAddress, lengths.baseAddress,
                            formats.baseAddress)
                    }
                }
            }
        }
    }

    /// Calls `body` with NULL-terminated keyword and value arrays for `PQconnectdbParams`.
    static func withKeywordValues<R>(
        _ pairs: [(keyword: String, value: String)],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>) -> R
    ) -> R {
        let keywords = pairs.map { UnsafePointer(strdup($0.keyword)) } + [nil]
        let values = pairs.map { UnsafePointer(strdup($0.value)) } + [nil]
        defer {
            for pointer in keywords + values { free(UnsafeMutablePointer(mutating: pointer)) }
        }
        return keywords.withUnsafeBufferPointer { keywords in
            values.withUnsafeBufferPointer { values in body(keywords.baseAddress!, values.baseAddress!) }
        }
    }
}
