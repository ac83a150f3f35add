import COpenSSL

/// JWS signatures (RFC 7515/7518) with the key's algorithm: RS256 (RSASSA-PKCS1-v1_5 with SHA-256)
/// for RSA, ES256 for P-256 in JOSE form (the raw 64-byte r‖s, not DER).
extension AsymmetricKey {
    /// The JWS `alg` this key signs with.
    public var jwsAlgorithm: String { kind == .rsa ? "RS256" : "ES256" }

    /// Signs `message` (RS256 or ES256 by the key's kind).
    public func sign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard isPrivate else { throw .signingFailed("public key only") }
        let der = try digestSign(message)
        return kind == .rsa ? der : try Self.joseSignature(fromDER: der)
    }

    /// Checks a signature made by `sign` (false for any malformed signature).
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard !signature.isEmpty else { return false }
        if kind == .rsa { return digestVerify(signature, message) }
        guard let der = Self.derSignature(fromJOSE: signature) else { return false }
        return digestVerify(der, message)
    }

    private func digestSign(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .signingFailed("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1,
            EVP_DigestSign(context, nil, &length, message, message.count) == 1
        else {
            OpenSSLErrorQueue.clear()
            throw .signingFailed("EVP_DigestSignInit")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            OpenSSLErrorQueue.clear()
            throw .signingFailed("EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }

    private func digestVerify(_ signature: [UInt8], _ message: [UInt8]) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let ok = EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        OpenSSLErrorQueue.clear()
        return ok
    }

    /// DER ECDSA-Sig-Value → r‖s, each left-padded to 32 bytes.
    private static func joseSignature(fromDER der: [UInt8]) throws(CryptoError) -> [UInt8] {
        let signature = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw .signingFailed("DER decode") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        guard ok else { throw .signingFailed("r/s padding") }
        return raw
    }

    /// r‖s (64 bytes) → DER ECDSA-Sig-Value; nil when it is not 64 bytes.
    private static func derSignature(fromJOSE signature: [UInt8]) -> [UInt8]? {
        guard signature.count == 64, let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let r = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var derPointer: UnsafeMutablePointer<UInt8>?
        let derLength = i2d_ECDSA_SIG(sig, &derPointer)
        guard derLength > 0, let derPointer else { return nil }
        defer { CRYPTO_free(derPointer, #file, #line) }
        return Array(UnsafeBufferPointer(start: derPointer, count: Int(derLength)))
    }
}
