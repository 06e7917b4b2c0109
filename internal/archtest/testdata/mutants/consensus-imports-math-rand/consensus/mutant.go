package consensus

import _ "math/rand"
