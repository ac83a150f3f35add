import Crypto
import COpenSSL
import COpenSSLShim

/// Owns one `SSL_CTX` configured for HTTP/2 (ALPN h2, TLS 1.2+). The pointer never leaves this
/// module's internal code.
final class TLSContext: @unchecked Sendable {
    // Thread safety: an SSL_CTX is immutable after set-up and OpenSSL allows sharing it between threads.
    let context: OpaquePointer

    private init(method: OpaquePointer?) throws(HTTP2Error) {
        guard let context = SSL_CTX_new(method) else { throw .tls(message: OpenSSLErrorQueue.drain()) }
        self.context = context
        guard sightscreen_ssl_ctx_configure(context) == 1 else { throw .tls(message: OpenSSLErrorQueue.drain()) }
    }

    deinit { SSL_CTX_free(context) }

    /// A client context that verifies the server against `caFile` (PEM) or, if nil, the system CAs.
    static func client(caFile: String?, verify: Bool) throws(HTTP2Error) -> TLSContext {
        let tls = try TLSContext(method: TLS_client_method())
        if verify {
            if let caFile {
                guard SSL_CTX_load_verify_locations(tls.context, caFile, nil) == 1 else {
                    throw .tls(message: "cannot load CA file \(caFile): \(OpenSSLErrorQueue.drain())")
                }
            } else {
                guard SSL_CTX_set_default_verify_paths(tls.context) == 1 else {
                    throw .tls(message: "cannot load system CAs: \(OpenSSLErrorQueue.drain())")
                }
            }
            SSL_CTX_set_verify(tls.context, SSL_VERIFY_PEER, nil)
        } else {
            SSL_CTX_set_verify(tls.context, SSL_VERIFY_NONE, nil)
        }
        let alpn: [UInt8] = [2, 0x68, 0x32]  // "\x02h2"
        guard SSL_CTX_set_alpn_protos(tls.context, alpn, UInt32(alpn.count)) == 0 else {
            throw .tls(message: "cannot set ALPN: \(OpenSSLErrorQueue.drain())")
        }
        return tls
    }

    /// A server context with a PEM certificate chain and PEM private key; selects ALPN h2.
    static func server(certificateFile: String, privateKeyFile: String) throws(HTTP2Error) -> TLSContext {
        let tls = try TLSContext(method: TLS_server_method())
        guard SSL_CTX_use_certificate_chain_file(tls.context, certificateFile) == 1 else {
            throw .tls(message: "cannot load certificate \(certificateFile): \(OpenSSLErrorQueue.drain())")
        }
        guard SSL_CTX_use_PrivateKey_file(tls.context, privateKeyFile, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(tls.context) == 1 else {
            throw .tls(message: "cannot load private key \(privateKeyFile): \(OpenSSLErrorQueue.drain())")
        }
        SSL_CTX_set_alpn_select_cb(tls.context, selectH2, nil)
        return tls
    }
}

/// ALPN selection on the server: picks "h2" or fails the handshake.
private func selectH2(
    _ ssl: OpaquePointer?, _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, _ outLength: UnsafeMutablePointer<UInt8>?,
    _ input: UnsafePointer<UInt8>?, _ inputLength: UInt32, _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let input, let out, let outLength else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    var index = 0
    let total = Int(inputLength)
    while index < total {
        let length = Int(input[index])
        if length == 2, index + 2 < total, input[index + 1] == 0x68, input[index + 2] == 0x32 {
            out.pointee = input + index + 1
            outLength.pointee = 2
            return SSL_TLSEXT_ERR_OK
        }
        index += 1 + length
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL
}
