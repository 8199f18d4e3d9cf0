// Package bpe counts tokens exactly as OpenAI's tiktoken does with its
// encode_ordinary, for the two encodings it embeds (o200k_base and
// cl100k_base): a hand-written scanner per encoding splits text into
// pieces as the encoding's regular expression would, and each piece is
// byte-pair merged over the encoding's rank table. It only counts; token
// ids are never needed. Package tokens is its only user.
package bpe
