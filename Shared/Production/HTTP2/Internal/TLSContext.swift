import Crypto
import COpenSSL
import COpenSSLShim

/// Owns one `SSL_CTX` configured for HTTP/2 (ALPN h2, TLS 1.2+). The pointer never leaves this
/// package (the harness's HTTP2Server adds the server side, `TLSContext.server`).
package final class TLSContext: @unchecked Sendable {
    // Thread safety: an SSL_CTX is immutable after set-up and OpenSSL allows sharing it between threads.
    package let context: OpaquePointer

    /// A context for `method` (client or server) with the shared HTTP/2 settings (TLS 1.2+).
    package init(method: OpaquePointer?) throws(HTTP2Error) {
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
}
