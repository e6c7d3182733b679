" Vim syntax for rwgraph graph files (.graph): docs/graph-files.md.
if exists('b:current_syntax')
  finish
endif

runtime! syntax/rwcommon.vim

" `def NAME`, `input NAME`, `const NAME`: the keyword, then the name.
syn keyword rwStatement    def nextgroup=rwDefName skipwhite
syn keyword rwStatement    input const nextgroup=rwInputName skipwhite
syn match   rwDefName      contained "\h\w*"
syn match   rwInputName    contained "%\=\w\+"
syn match   rwBinding      "^\s*\zs%\=\w\+\ze\s*=\([=>]\)\@!"

" Types: `f64[?, 3]`, `csr_f64[?, ?]`, `rng`, `i64`.
syn match   rwType         "\<\(\(csr\|csc\)_\)\=\(bool\|u\=int\(8\|16\|32\|64\)\|float\(32\|64\)\|[iu]8\|i16\|i32\|i64\|f32\|f64\)\>"
      \ nextgroup=rwExtents
syn keyword rwType         rng
syn region  rwExtents      contained oneline matchgroup=rwPunct start="\[" end="\]"
      \ contains=rwUnknownExtent,rwInteger,rwPunct
syn match   rwUnknownExtent contained "?"
syn keyword rwPropWord     true false

hi def link rwDefName      Function
hi def link rwInputName    Identifier
hi def link rwBinding      Identifier
hi def link rwType         Type
hi def link rwUnknownExtent Special

let b:current_syntax = 'rwgraph'
