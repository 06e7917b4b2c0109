package consensus

import _ "crypto/rand"
