import COpenSSL
import Crypto
import COpenSSLShim
import HTTP2

/// The server side of the package's TLS core: only the harness's server uses it, so it is not in the
/// production module.
extension TLSContext {
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

extension TLSStream {
    /// A server stream for an accepted socket.
    convenience init(server context: TLSContext, fd: Int32) throws(HTTP2Error) {
        try self.init(context: context, fd: fd) { SSL_set_accept_state($0) }
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
