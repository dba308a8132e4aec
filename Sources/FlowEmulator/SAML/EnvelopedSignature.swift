import Crypto
import CryptoExtras
import FlowEmulatorData
import FlowVocabulary
import Foundation

/// The one shape of XML signature (XML-DSig) accepted on a SAML assertion: enveloped, RSA-SHA256 over a SHA-256
/// digest, exclusive canonicalization, one reference to the signed element by its ID.
///
/// What is checked, in order: the element has exactly one `ds:Signature` child; its `SignedInfo` holds exactly
/// `CanonicalizationMethod` (exc-c14n), `SignatureMethod` (RSA-SHA256) and one `Reference` whose transforms are
/// exactly enveloped-signature then exc-c14n and whose digest is SHA-256; the reference's URI is `#` and the
/// element's `ID`, and exactly one element of the whole document carries that ID (so the digest is of the element
/// whose data is used, not of a copy moved elsewhere); the digest of the element canonicalized without its signature;
/// the signature over the canonicalized `SignedInfo` with the trusted key. The certificate in `KeyInfo` is never used
/// for verification; it only explains a failure.
enum EnvelopedSignature {
    static let namespace = "http://www.w3.org/2000/09/xmldsig#"
    static let rsaSHA256 = "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"
    static let sha256 = "http://www.w3.org/2001/04/xmlenc#sha256"
    static let envelopedSignatureTransform = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"
    /// A longer InclusiveNamespaces PrefixList is refused (it is read before the signature is checked, and costs
    /// time on every element).
    static let maximumInclusivePrefixes = 64

    /// Names of algorithms that are recognised but refused, for the refusal's words.
    private static let refusedAlgorithms = [
        "http://www.w3.org/2000/09/xmldsig#rsa-sha1": "RSA-SHA1 (SHA-1 is refused)",
        "http://www.w3.org/2000/09/xmldsig#sha1": "SHA-1 (SHA-1 is refused)",
        "http://www.w3.org/2001/04/xmldsig-more#rsa-sha384": "RSA-SHA384",
        "http://www.w3.org/2001/04/xmldsig-more#rsa-sha512": "RSA-SHA512",
        "http://www.w3.org/2001/04/xmldsig-more#sha384": "SHA-384",
        "http://www.w3.org/2001/04/xmlenc#sha512": "SHA-512",
        "http://www.w3.org/2000/09/xmldsig#hmac-sha1": "HMAC-SHA1",
        "http://www.w3.org/2001/04/xmldsig-more#hmac-sha256": "HMAC-SHA256",
        "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256": "ECDSA-SHA256",
        "http://www.w3.org/TR/2001/REC-xml-c14n-20010315": "inclusive canonicalization (C14N 1.0)",
        "http://www.w3.org/TR/2001/REC-xml-c14n-20010315#WithComments": "inclusive canonicalization with comments",
        "http://www.w3.org/2001/10/xml-exc-c14n#WithComments": "exclusive canonicalization with comments",
        "http://www.w3.org/2006/12/xml-c14n11": "canonical XML 1.1",
    ]

    /// Checks that `element`, found at `path` in `tree`, is signed by its enveloped signature with `trust`'s key.
    /// - Throws: ``SAMLRefusal`` naming the first check that failed.
    static func verify(
        _ element: XMLTree.Element, at path: XMLTree.Path, in tree: XMLTree, trusting trust: SAMLTrust
    ) throws(SAMLRefusal) {
        let signatures = element.children.indices.filter { index in
            if case .element(let child) = element.children[index] {
                child.isNamed("Signature", in: namespace)
            } else {
                false
            }
        }
        guard signatures.count == 1, let signatureIndex = signatures.first,
            case .element(let signature) = element.children[signatureIndex]
        else {
            throw SAMLRefusal(
                signatures.isEmpty
                    ? "The assertion is not signed: it has no ds:Signature."
                    : "The assertion has \(signatures.count) ds:Signature elements; exactly one is accepted.")
        }
        let signedInfo = try only("SignedInfo", in: signature)
        let signatureValue = try only("SignatureValue", in: signature)

        // SignedInfo: exactly CanonicalizationMethod, SignatureMethod, Reference.
        let parts = signedInfo.elements
        guard parts.count == 3, parts[0].isNamed("CanonicalizationMethod", in: namespace),
            parts[1].isNamed("SignatureMethod", in: namespace), parts[2].isNamed("Reference", in: namespace)
        else {
            throw SAMLRefusal(
                "The signature's SignedInfo must hold CanonicalizationMethod, SignatureMethod and one Reference, "
                    + "in that order, and nothing else.")
        }
        let canonicalization = try exclusiveCanonicalization(parts[0], "canonicalization method")
        try require(parts[1], is: rsaSHA256, "signature method", accepted: "RSA-SHA256")
        guard parts[1].elements.isEmpty else {
            throw SAMLRefusal("The signature's SignatureMethod must have no parameters.")
        }

        // The reference: the element itself, by an ID no other element carries.
        let reference = parts[2]
        let referenceParts = reference.elements
        guard referenceParts.count == 3, referenceParts[0].isNamed("Transforms", in: namespace),
            referenceParts[1].isNamed("DigestMethod", in: namespace),
            referenceParts[2].isNamed("DigestValue", in: namespace)
        else {
            throw SAMLRefusal(
                "The signature's Reference must hold Transforms, DigestMethod and DigestValue, in that order.")
        }
        guard let id = element.attribute("ID"), !id.isEmpty else {
            throw SAMLRefusal("The signed assertion has no ID.")
        }
        guard reference.attribute("URI") == "#" + id else {
            throw SAMLRefusal("The signature's Reference does not point to the assertion (URI is not #<its ID>).")
        }
        let carriers = tree.elementsWithPaths.filter { Self.carries(id, $0.element) }
        guard carriers.count == 1, carriers[0].path == path else {
            throw SAMLRefusal(
                "\(carriers.count) elements carry the ID the signature references; exactly one, the assertion, must "
                    + "(a signature wrapping attempt).")
        }
        let transforms = referenceParts[0].elements
        guard transforms.count == 2, transforms.allSatisfy({ $0.isNamed("Transform", in: namespace) }),
            transforms[0].attribute("Algorithm") == envelopedSignatureTransform, transforms[0].elements.isEmpty
        else {
            throw SAMLRefusal(
                "The signature's transforms must be exactly enveloped-signature followed by exclusive "
                    + "canonicalization.")
        }
        let referenceCanonicalization = try exclusiveCanonicalization(transforms[1], "reference transform")
        try require(referenceParts[1], is: sha256, "digest method", accepted: "SHA-256")
        guard let expectedDigest = decodeBase64(referenceParts[2].text), expectedDigest.count == SHA256.byteCount
        else {
            throw SAMLRefusal("The signature's DigestValue is not a base64 SHA-256 digest.")
        }

        // The digest of the element without its signature (the enveloped-signature transform).
        var unsigned = element
        unsigned.children.remove(at: signatureIndex)
        let digest = SHA256.hash(data: referenceCanonicalization.canonicalize(unsigned))
        guard ConstantTime.equal(Array(digest), expectedDigest) else {
            throw SAMLRefusal(
                "The assertion does not match the digest in its signature: it was changed after it was signed.")
        }

        // The signature over SignedInfo, with the pinned key only.
        guard let value = decodeBase64(signatureValue.text), value.count * 8 == trust.publicKey.keySizeInBits else {
            throw SAMLRefusal(
                "The signature's SignatureValue is not a base64 RSA signature as long as the trusted key "
                    + "(\(trust.publicKey.keySizeInBits) bits).")
        }
        let signed = canonicalization.canonicalize(signedInfo)
        guard
            trust.publicKey.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: value), for: SHA256.hash(data: signed),
                padding: .insecurePKCS1v1_5)
        else {
            let offered = signature.elements("KeyInfo", in: namespace).first?.elements("X509Data", in: namespace)
                .first?.elements("X509Certificate", in: namespace).first.flatMap { decodeBase64($0.text) }
            let hint =
                offered.map { $0 == trust.certificateDER ? "" : " The response's KeyInfo names another certificate." }
                ?? ""
            throw SAMLRefusal("The assertion's signature does not verify with the trusted certificate.\(hint)")
        }
    }

    /// Whether `element` carries `id` as an ID: `ID`, `Id` or `id` (XML-DSig and SAML documents use each), or
    /// `xml:id`.
    private static func carries(_ id: String, _ element: XMLTree.Element) -> Bool {
        element.attributes.contains { attribute in
            attribute.value == id
                && (attribute.prefix == nil
                    ? ["ID", "Id", "id"].contains(attribute.localName)
                    : attribute.namespace == StrictXMLParser.xmlNamespace && attribute.localName == "id")
        }
    }

    /// The single child `localName` of `signature`.
    private static func only(
        _ localName: String, in signature: XMLTree.Element
    ) throws(SAMLRefusal)
        -> XMLTree.Element
    {
        let found = signature.elements(localName, in: namespace)
        guard found.count == 1 else {
            throw SAMLRefusal("The signature must have exactly one ds:\(localName); it has \(found.count).")
        }
        return found[0]
    }

    /// A `CanonicalizationMethod` or `Transform` that must be exclusive canonicalization, with its PrefixList.
    private static func exclusiveCanonicalization(
        _ method: XMLTree.Element, _ role: String
    ) throws(SAMLRefusal) -> ExclusiveCanonicalization {
        try require(method, is: ExclusiveCanonicalization.algorithm, role, accepted: "exclusive canonicalization")
        let parameters = method.elements
        guard parameters.count <= 1,
            parameters.allSatisfy({ $0.isNamed("InclusiveNamespaces", in: ExclusiveCanonicalization.algorithm) })
        else {
            throw SAMLRefusal("The signature's \(role) has parameters other than InclusiveNamespaces.")
        }
        let canonicalization = ExclusiveCanonicalization(prefixList: parameters.first?.attribute("PrefixList") ?? "")
        guard canonicalization.inclusivePrefixes.count <= maximumInclusivePrefixes else {
            throw SAMLRefusal(
                "The signature's \(role) lists more than \(maximumInclusivePrefixes) inclusive namespace prefixes.")
        }
        return canonicalization
    }

    /// Refuses `method` unless its `Algorithm` is `algorithm`, naming a known other algorithm.
    private static func require(
        _ method: XMLTree.Element, is algorithm: String, _ role: String, accepted: String
    ) throws(SAMLRefusal) {
        let given = method.attribute("Algorithm") ?? ""
        guard given != algorithm else { return }
        let name = refusedAlgorithms[given].map { " It is \($0)." } ?? ""
        throw SAMLRefusal("The signature's \(role) is not \(accepted), the only one accepted.\(name)")
    }

    /// Base64 with white space anywhere (as in `DigestValue`, `SignatureValue` and certificates).
    static func decodeBase64(_ text: String) -> [UInt8]? {
        let compact = String(String.UnicodeScalarView(text.unicodeScalars.filter { !XMLCharacters.isWhitespace($0) }))
        return Data(base64Encoded: compact).map(Array.init)
    }
}
