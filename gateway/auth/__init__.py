"""Request authentication: AWS Signature V4 against access keys kept in the control plane
(authenticator.py, sigv4.py), and bearer tokens (bearer.py).

An endpoint authenticates a request before it reads or changes any data: it gets the
verified `Principal` (whose account scopes every name the request uses), or an
`AuthError` it renders in its own error format.
"""
