import COpenSSL

/// An OpenSSL memory BIO, used to move PEM text in and out of OpenSSL.
package enum MemoryBIO {
    /// Runs `write` on a fresh memory BIO and returns what it wrote as text.
    package static func text(_ write: (OpaquePointer) -> Int32) throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .certificate(OpenSSLErrorQueue.drain()) }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw .certificate(OpenSSLErrorQueue.drain()) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = BIO_read(bio, &chunk, Int32(chunk.count))
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<Int(count)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Runs `read` on a read-only memory BIO over `text` (e.g. a PEM reader); nil when it fails.
    static func reading(_ text: String, _ read: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return read(bio)
        }
    }
}
