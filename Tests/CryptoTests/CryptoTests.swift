import Foundation
import Testing
@testable import Crypto
import DevCredentials

/// The one OpenSSL key owner: generation, PEM round trips, JWS signatures of both kinds, digests
/// against published test vectors, and the certificate tool.
@Suite struct CryptoTests {
    static let rsa: AsymmetricKey = try! AsymmetricKey.generateRSA()
    static let p256: AsymmetricKey = try! AsymmetricKey.generateP256()

    @Test func rsaSignsRS256AndVerifiesOnlyItsOwnMessage() throws {
        let key = Self.rsa
        #expect(key.kind == .rsa && key.isPrivate && key.jwsAlgorithm == "RS256")
        let message = Array("header.payload".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 256)
        #expect(key.verify(signature: signature, message: message))
        #expect(!key.verify(signature: signature, message: Array("header.payloaD".utf8)))
        let numbers = try key.rsaPublicNumbers()
        let publicOnly = try AsymmetricKey.rsaPublicKey(modulus: numbers.modulus, exponent: numbers.exponent)
        #expect(!publicOnly.isPrivate)
        #expect(publicOnly.verify(signature: signature, message: message))
        #expect(throws: CryptoError.signingFailed("public key only")) { try publicOnly.sign(message) }
    }

    @Test func p256SignsJoseES256() throws {
        let key = Self.p256
        #expect(key.kind == .p256 && key.jwsAlgorithm == "ES256")
        let message = Array("apns".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        #expect(key.verify(signature: signature, message: message))
        #expect(!key.verify(signature: Array(signature.dropLast()), message: message))
        let other = try AsymmetricKey.generateP256()
        #expect(!other.verify(signature: signature, message: message))
    }

    @Test func pemRoundTripsAndPublicPEMVerifies() throws {
        let pem = try Self.p256.privateKeyPEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let reread = try AsymmetricKey(pem: pem)
        #expect(reread.isPrivate && reread.kind == .p256)
        let signature = try reread.sign([1, 2, 3])
        let publicKey = try AsymmetricKey(pem: Self.p256.publicKeyPEM, allowPublic: true)
        #expect(!publicKey.isPrivate)
        #expect(publicKey.verify(signature: signature, message: [1, 2, 3]))
        #expect(throws: CryptoError.invalidKey("not a PEM private key")) { try AsymmetricKey(pem: Self.p256.publicKeyPEM) }
        #expect(throws: CryptoError.invalidKey("not a PEM private or public key")) {
            try AsymmetricKey(pem: "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----", allowPublic: true)
        }
    }

    @Test func shortRSAModulusIsRefused() {
        #expect(throws: CryptoError.invalidKey("RSA modulus shorter than 2048 bits")) {
            try AsymmetricKey.rsaPublicKey(modulus: [UInt8](repeating: 0xff, count: 128), exponent: [1, 0, 1])
        }
    }

    @Test func digestsMatchPublishedVectors() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex(Digest.sha1(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        // RFC 4231 test case 2.
        #expect(hex(Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func selfSignedCertificateNamesLocalhostAndExtraIPs() throws {
        let (certificate, key) = try SelfSignedCertificate.generatePEM(commonName: "mock-apns", extraNames: ["10.0.0.7", "apns.local"])
        #expect(certificate.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(try AsymmetricKey(pem: key).kind == .p256)
        let directory = NSTemporaryDirectory() + "crypto-tests-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try SelfSignedCertificate.loadOrGenerate(in: directory)
        let again = try SelfSignedCertificate.loadOrGenerate(in: directory)
        #expect(files == again)
        #expect(FileManager.default.fileExists(atPath: files.privateKeyFile))
    }

    @Test func hostNamesTellIPLiteralsApart() {
        #expect(HostName.isIPLiteral("127.0.0.1") && HostName.isIPLiteral("::1"))
        #expect(!HostName.isIPLiteral("localhost") && !HostName.isIPLiteral("api.push.apple.com"))
    }
}
